import Link from 'next/link';
import type { ReactNode } from 'react';
import s from './hosted.module.css';

type Me = { user: { email: string; name: string | null }; organization: { id: string; name: string; role: string } | null; teams: Array<{ id: string; name: string }>; account: { name: string } } | null;

/** The hosted app's frame: skip link, header with navigation and sign-out, and the main landmark. */
export function HostedFrame({ me, title, children }: { me: Me; title: string; children: ReactNode }) {
  return (
    <>
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className={s.top}>
        <strong>{me?.account.name ?? 'Steward'}</strong>
        {me && (
          <nav aria-label="Main">
            <ul>
              <li>
                <Link href="/">Home</Link>
              </li>
              {me.organization && (
                <li>
                  <Link href={`/organizations/${me.organization.id}`}>Organization</Link>
                </li>
              )}
              {me.teams.map((t) => (
                <li key={t.id}>
                  <Link href={`/teams/${t.id}`}>{t.name}</Link>
                </li>
              ))}
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
    </>
  );
}
