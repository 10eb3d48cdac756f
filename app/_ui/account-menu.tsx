'use client';
import * as Menu from '@radix-ui/react-dropdown-menu';
import Link from 'next/link';
import ui from './ui.module.css';

type Place = { href: string; label: string };

/**
 * The person's other places (organization, teams, invitations) in a menu. Radix's DropdownMenu
 * brings the keyboard and focus behaviour a menu needs (arrow keys, typeahead, Escape, focus
 * returned to the button) instead of it being written here.
 */
export function AccountMenu({ places }: { places: Place[] }) {
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger className={ui.menuButton}>
        Your organization and teams <span aria-hidden="true">▾</span>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content className={ui.menu} align="end" sideOffset={6}>
          {places.map((p) => (
            <Menu.Item key={p.href} asChild className={ui.menuItem}>
              <Link href={p.href}>{p.label}</Link>
            </Menu.Item>
          ))}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
