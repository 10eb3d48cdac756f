import type { ReactNode } from 'react';
import { requestSite } from '@/app/_lib/server-caller';
import { BrandMark, BrandStyle } from './brand';

/** The account this hosted site serves, by its host (null when none answers here). */
export async function siteAccount(): Promise<{ name: string } | null> {
  try {
    const { account } = await requestSite();
    return { name: account.name };
  } catch {
    return null;
  }
}

/**
 * The signed-out pages' frame (sign-in, check your email, the front page): the account's mark,
 * name and colour above one centred card.
 */
export async function AuthShell({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  const account = await siteAccount();
  const name = account?.name ?? 'Steward';
  return (
    <>
      <BrandStyle account={name} />
      <a href="#main" className="skip">
        Skip to content
      </a>
      <div className="flex min-h-dvh flex-col items-center bg-surface px-4 py-10 sm:justify-center sm:py-16">
        <header className="mb-6 flex items-center gap-2 text-lg font-semibold">
          <BrandMark name={name} />
          {name}
        </header>
        <main id="main" className="w-full max-w-md rounded-xl border border-border bg-raised p-6 shadow-pop sm:p-8">
          <h1 className="mb-2 text-xl">{title}</h1>
          {children}
        </main>
        {footer && <footer className="mt-6 text-center text-sm text-muted">{footer}</footer>}
      </div>
    </>
  );
}
