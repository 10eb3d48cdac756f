'use client';
import { Cpu, Gauge, KeyRound, LayoutDashboard, Lock, MessagesSquare, Phone, Power, ScrollText, ShieldCheck, UsersRound, Webhook } from 'lucide-react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { cn } from '@/app/_ui/cn';

/** The console's sections (spec 6: everything the admin CLI does for one account). */
export const CONSOLE_PAGES: Array<{ href: string; label: string; icon: ReactNode }> = [
  { href: '/console', label: 'Overview', icon: <LayoutDashboard aria-hidden="true" /> },
  { href: '/console/models', label: 'Models', icon: <Cpu aria-hidden="true" /> },
  { href: '/console/keys', label: 'API keys', icon: <KeyRound aria-hidden="true" /> },
  { href: '/console/certificates', label: 'Certificates', icon: <ShieldCheck aria-hidden="true" /> },
  { href: '/console/kill-switch', label: 'Kill switch', icon: <Power aria-hidden="true" /> },
  { href: '/console/policy', label: 'Locks and capabilities', icon: <Lock aria-hidden="true" /> },
  { href: '/console/limits', label: 'Limits and budgets', icon: <Gauge aria-hidden="true" /> },
  { href: '/console/phone-lines', label: 'Phone lines', icon: <Phone aria-hidden="true" /> },
  { href: '/console/chat-apps', label: 'Slack and Teams', icon: <MessagesSquare aria-hidden="true" /> },
  { href: '/console/webhooks', label: 'Webhooks', icon: <Webhook aria-hidden="true" /> },
  { href: '/console/audit', label: 'Audit log', icon: <ScrollText aria-hidden="true" /> },
  { href: '/console/members', label: 'Console members', icon: <UsersRound aria-hidden="true" /> },
];

const current = (path: string, href: string) => (href === '/console' ? path === href : path === href || path.startsWith(`${href}/`));

/**
 * The side navigation, the current section marked (aria-current): a column on a wide screen, a
 * row that scrolls sideways on a phone (44 px targets), the current one scrolled into view.
 */
export function ConsoleNav() {
  const path = usePathname() ?? '/console';
  return (
    <nav aria-label="Console">
      <ul className="-mx-3 flex gap-1 overflow-x-auto px-3 pb-1 lg:mx-0 lg:flex-col lg:gap-0.5 lg:overflow-visible lg:px-0 lg:pb-0">
        {CONSOLE_PAGES.map((p) => {
          const on = current(path, p.href);
          return (
            <li key={p.href} className="shrink-0">
              <Link
                href={p.href}
                aria-current={on ? 'page' : undefined}
                ref={on ? (el) => el?.scrollIntoView({ block: 'nearest', inline: 'nearest' }) : undefined}
                className={cn(
                  'flex min-h-11 items-center gap-2.5 rounded-md border border-border px-3 text-sm whitespace-nowrap text-fg no-underline hover:bg-raised lg:min-h-9 lg:border-transparent lg:px-2.5 [&_svg]:size-4 [&_svg]:text-muted',
                  on && 'border-accent bg-raised font-semibold lg:border-transparent lg:shadow-[inset_0_0_0_1px_var(--border)] [&_svg]:text-accent',
                )}
              >
                {p.icon}
                {p.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
