import Link from 'next/link';
import type { ReactNode } from 'react';
import { serverCaller } from '@/app/_lib/server-caller';
import { AccountMenu } from './account-menu';
import { NavLinks } from './nav';
import s from './hosted.module.css';
import { Toaster } from './toast';

type Me = {
  user: { email: string; name: string | null };
  organization: { id: string; name: string; role: string } | null;
  teams: Array<{ id: string; name: string }>;
  account: { name: string; logoUrl?: string | null };
} | null;

/** What waits on the signed-in person, for the count beside Home (0 when it cannot be read). */
async function needsMeCount(): Promise<number> {
  try {
    const { api } = await serverCaller();
    return (await api.inbox.count()).total;
  } catch {
    return 0;
  }
}

/**
 * The hosted app's frame on every page: skip link; the account's name (and logo when one is set)
 * linking home; the main navigation with the count of what waits on the person; their
 * organization and teams in a menu; sign-out; the main landmark with the page's one h1.
 */
export async function HostedFrame({ me, title, children, needsMe }: { me: Me; title: string; children: ReactNode; needsMe?: number }) {
  // A page that already read the count (home) passes it; every other page reads it here.
  const count = me ? (needsMe ?? (await needsMeCount())) : 0;
  const places = me
    ? [
        ...(me.organization ? [{ href: `/organizations/${me.organization.id}`, label: `Organization: ${me.organization.name}` }] : []),
        ...me.teams.map((t) => ({ href: `/teams/${t.id}`, label: `Team: ${t.name}` })),
        { href: '/invitations', label: 'Invitations' },
      ]
    : [];
  return (
    <Toaster>
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className={s.top}>
        <Link href="/" className={s.brand}>
          {me?.account.logoUrl ? <img src={me.account.logoUrl} alt="" /> : null}
          {me?.account.name ?? 'Steward'}
        </Link>
        {me && (
          <nav aria-label="Main">
            <ul>
              <NavLinks needsMe={count} />
              <li className={s.account}>
                <AccountMenu places={places} />
              </li>
              <li>
                {/* A same-origin POST: a cross-site link or GET must not be able to sign anyone out. */}
                <form method="post" action="/api/sso/saml/slo">
                  <button type="submit" className={s.secondary}>
                    Sign out ({me.user.email})
                  </button>
                </form>
              </li>
            </ul>
          </nav>
        )}
      </header>
      <main id="main" className={s.shell}>
        <h1>{title}</h1>
        {children}
      </main>
    </Toaster>
  );
}
