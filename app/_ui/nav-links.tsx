'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { cn } from './cn';

/*
 * Side navigation of a sectioned page (settings, an organization, a team, the console): a column
 * beside the content on a wide screen, a row of chips that scrolls inside itself above it on a
 * phone. `items` are { href, label, icon? }; the current one gets aria-current="page".
 */
export type NavItem = { href: string; label: string; icon?: ReactNode; exact?: boolean };

const current = (path: string, item: NavItem) => (item.exact ? path === item.href : path === item.href || path.startsWith(`${item.href}/`));

export function SideNav({ label, items }: { label: string; items: NavItem[] }) {
  const path = usePathname() ?? '';
  return (
    <nav aria-label={label} className="-mx-3 mb-4 overflow-x-auto px-3 lg:mx-0 lg:mb-0 lg:overflow-visible lg:px-0">
      <ul className="flex gap-1 lg:flex-col">
        {items.map((item) => {
          const on = current(path, item);
          return (
            <li key={item.href} className="shrink-0">
              <Link
                href={item.href}
                aria-current={on ? 'page' : undefined}
                className={cn(
                  'flex min-h-11 items-center gap-2 rounded-md px-3 text-sm whitespace-nowrap text-fg no-underline hover:bg-surface lg:min-h-9 [&_svg]:size-4 [&_svg]:text-muted',
                  'border border-border lg:border-transparent',
                  on && 'border-accent/40 bg-accent-soft font-semibold text-accent [&_svg]:text-accent',
                )}
              >
                {item.icon}
                {item.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** A page with a side navigation: the nav in a 14 rem column on a wide screen, above the content on a phone. */
export function Sectioned({ nav, children }: { nav: ReactNode; children: ReactNode }) {
  return (
    <div className="lg:grid lg:grid-cols-[13rem_minmax(0,1fr)] lg:gap-8">
      <div className="lg:sticky lg:top-4 lg:self-start">{nav}</div>
      <div className="min-w-0">{children}</div>
    </div>
  );
}
