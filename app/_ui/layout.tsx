import Link from 'next/link';
import type { ReactNode } from 'react';
import { serverCaller } from '@/app/_lib/server-caller';
import { DEFAULT_PREFS, type Prefs } from '@/app/_lib/time';
import { AccountBlock, type Place } from './account-menu';
import { BrandMark, BrandStyle } from './brand';
import { DesktopNotices } from './desktop-notices';
import { cn } from './cn';
import { BottomNav, SideNavLinks } from './nav';
import { PrefsProvider } from './time';
import { Toaster } from './toast';

export type Me = {
  user: { email: string; name: string | null };
  organization: { id: string; name: string; role: string } | null;
  teams: Array<{ id: string; name: string }>;
  account: { name: string; logoUrl?: string | null };
  prefs?: Prefs;
  desktopNotices?: boolean;
} | null;

/** What waits on the signed-in person, for the count beside Inbox (0 when it cannot be read). */
async function needsMeCount(): Promise<number> {
  try {
    const { api } = await serverCaller();
    return (await api.inbox.count()).total;
  } catch {
    return 0;
  }
}

/**
 * The hosted app's frame on every page: skip link; the account's name, mark and colour; the main
 * navigation (a side column on a wide screen, a bottom bar on a phone) with the live count of
 * what waits on the person; their organization, teams and sign-out; the main landmark with the
 * page's one h1, an optional line under it and actions on its right.
 *
 * `width`: 'page' (reading width, the default), 'wide' (lists with a side panel), 'full'.
 */
export async function HostedFrame({
  me,
  title,
  children,
  needsMe,
  description,
  actions,
  width = 'page',
  hideTitle,
}: {
  me: Me;
  title: string;
  children: ReactNode;
  needsMe?: number;
  description?: ReactNode;
  actions?: ReactNode;
  width?: 'page' | 'wide' | 'full';
  hideTitle?: boolean;
}) {
  // A page that already read the count (home, inbox) passes it; every other page reads it here.
  const count = me ? (needsMe ?? (await needsMeCount())) : 0;
  const accountName = me?.account.name ?? 'Steward';
  const places: Place[] = me
    ? [
        ...(me.organization ? [{ href: `/organizations/${me.organization.id}`, label: me.organization.name, kind: 'organization' as const }] : []),
        ...me.teams.map((t) => ({ href: `/teams/${t.id}`, label: t.name, kind: 'team' as const })),
        ...(me.organization && me.organization.role !== 'guest' ? [{ href: '/teams', label: 'Join a team', kind: 'team' as const }] : []),
        { href: '/invitations', label: 'Invitations', kind: 'invitations' as const },
      ]
    : [];
  const account = me ? <AccountBlock name={me.user.name ?? me.user.email} email={me.user.email} places={places} /> : null;
  const maxWidth = width === 'page' ? 'max-w-4xl' : width === 'wide' ? 'max-w-6xl' : 'max-w-none';
  const brand = (
    <Link href="/" prefetch={false} className="flex min-h-11 items-center gap-2 rounded-md px-1 font-semibold text-fg no-underline">
      <BrandMark name={accountName} logoUrl={me?.account.logoUrl} />
      <span className="truncate">{accountName}</span>
    </Link>
  );
  return (
    <PrefsProvider prefs={me?.prefs ?? DEFAULT_PREFS}>
      <Toaster>
        <BrandStyle account={accountName} />
        {me?.desktopNotices && <DesktopNotices count={count} />}
        <a href="#main" className="skip">
          Skip to content
        </a>
        <div className={cn('min-h-dvh', me && 'lg:grid lg:grid-cols-[15rem_minmax(0,1fr)]')}>
          {me && (
            <aside className="hidden border-r border-border bg-surface lg:sticky lg:top-0 lg:flex lg:h-dvh lg:flex-col lg:overflow-y-auto lg:px-3 lg:py-3">
              <div className="mb-3">{brand}</div>
              <nav aria-label="Main" className="flex min-h-0 flex-1 flex-col">
                <SideNavLinks needsMe={count} extra={account} />
              </nav>
            </aside>
          )}
          <div className="min-w-0">
            <header className={cn('sticky top-0 z-30 flex h-14 items-center justify-between gap-3 border-b border-border bg-bg/95 px-3 backdrop-blur', me && 'lg:hidden')}>
              {brand}
              {!me && (
                <Link href="/sign-in" className="inline-flex min-h-11 items-center rounded-md px-3 text-sm font-medium">
                  Sign in
                </Link>
              )}
            </header>
            <main id="main" className={cn('mx-auto w-full px-4 pt-4 pb-24 sm:px-6 lg:pt-8 lg:pb-12', maxWidth)}>
              <div className={cn('mb-4 flex flex-wrap items-end justify-between gap-3', hideTitle && 'sr-only')}>
                <div className="min-w-0">
                  <h1 className="[overflow-wrap:anywhere]">{title}</h1>
                  {description && <div className="mt-1 text-muted">{description}</div>}
                </div>
                {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
              </div>
              {children}
            </main>
          </div>
        </div>
        {me && (
          <nav aria-label="Main" className="fixed inset-x-0 bottom-0 z-30 border-t border-border bg-bg/95 pb-[env(safe-area-inset-bottom)] backdrop-blur lg:hidden">
            <BottomNav needsMe={count} more={<ul className="flex flex-col gap-1">{account}</ul>} />
          </nav>
        )}
      </Toaster>
    </PrefsProvider>
  );
}
