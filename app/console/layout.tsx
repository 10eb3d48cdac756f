import { ArrowLeft, LogOut } from 'lucide-react';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { DEFAULT_PREFS } from '@/app/_lib/time';
import { BrandMark, BrandStyle } from '@/app/_ui/brand';
import { Badge } from '@/app/_ui/states';
import { PrefsProvider } from '@/app/_ui/time';
import { Toaster } from '@/app/_ui/toast';
import { ROLE_LABELS } from '@/server/console/roles';
import { ConsoleNav } from './_ui/console-nav';
import { consoleMember } from './_ui/session';

export const dynamic = 'force-dynamic';

const quiet = 'inline-flex min-h-11 items-center gap-1.5 rounded-md px-2 text-sm text-muted no-underline hover:bg-raised hover:text-fg lg:min-h-8 [&_svg]:size-4';

/**
 * The console's own frame (spec 6, /console), in the app's design system: the account's mark and
 * name, a side navigation of every section (a scrolling row on a phone), the member's address and
 * role, the way back to the app and sign-out. Only console members get the frame: for anyone else
 * the page itself sends them to sign in (back to that page) or answers 404.
 */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const found = await consoleMember();
  if (!found) return children;
  const { member, prefs } = found;
  const account = member.account.name;
  const way = (
    <>
      <Link href="/" className={quiet}>
        <ArrowLeft aria-hidden="true" />
        Back to the app
      </Link>
      {/* A same-origin POST: a cross-site link or GET must not be able to sign anyone out. */}
      <form method="post" action="/api/sso/saml/slo">
        <button type="submit" className={quiet}>
          <LogOut aria-hidden="true" />
          Sign out<span className="sr-only"> ({member.email})</span>
        </button>
      </form>
    </>
  );
  return (
    <PrefsProvider prefs={prefs ?? DEFAULT_PREFS}>
      <Toaster>
        <BrandStyle account={account} />
        <a href="#main" className="skip">
          Skip to content
        </a>
        <div className="min-h-dvh lg:grid lg:grid-cols-[15.5rem_minmax(0,1fr)]">
          <aside aria-label="Console sections" className="border-b border-border bg-surface px-3 pt-2 pb-2 lg:sticky lg:top-0 lg:flex lg:h-dvh lg:flex-col lg:overflow-y-auto lg:border-r lg:border-b-0 lg:py-3">
            <div className="mb-2 flex items-center justify-between gap-2 lg:mb-3 lg:block">
              <Link href="/console" className="flex min-h-11 min-w-0 items-center gap-2 rounded-md px-1 font-semibold text-fg no-underline">
                <BrandMark name={account} />
                <span className="min-w-0 truncate">
                  {account} <span className="font-normal text-muted">Console</span>
                </span>
              </Link>
              <div className="flex shrink-0 items-center lg:hidden">{way}</div>
            </div>
            <ConsoleNav />
            <div className="mt-auto hidden border-t border-border pt-3 lg:block">
              <p className="truncate px-1 text-sm" title={member.email}>
                {member.email}
              </p>
              <p className="mb-2 px-1">
                <Badge tone={member.role === 'viewer' ? 'plain' : 'accent'}>{ROLE_LABELS[member.role]}</Badge>
              </p>
              {way}
            </div>
          </aside>
          <main id="main" className="mx-auto w-full max-w-6xl min-w-0 px-4 pt-4 pb-16 sm:px-6 lg:pt-8">
            {children}
          </main>
        </div>
      </Toaster>
    </PrefsProvider>
  );
}
