'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import ui from '@/app/_ui/ui.module.css';

const PAGES = [
  { href: '/settings', label: 'Profile and hours' },
  { href: '/settings/autonomy', label: 'Autonomy' },
  { href: '/settings/identifiers', label: 'Emails and phones' },
  { href: '/settings/channels', label: 'Connected channels' },
  { href: '/settings/api-keys', label: 'API keys' },
] as const;

/** The settings' own pages, the current one marked. */
export function SettingsNav() {
  const path = usePathname();
  return (
    <nav aria-label="Settings" className={ui.subnav}>
      <ul>
        {PAGES.map((p) => (
          <li key={p.href}>
            <Link href={p.href} aria-current={path === p.href ? 'page' : undefined}>
              {p.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
