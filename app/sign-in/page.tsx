import { AuthShell } from '@/app/_ui/auth-shell';
import { safeReturnTo } from '@/server/sign-in/saml-start';
import { SignInForm } from './sign-in-form';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Sign in · Steward' };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const q = await searchParams;
  return (
    <AuthShell title="Sign in">
      <p className="mb-5 text-muted">Enter your work email. If your organization uses single sign-on you continue there; otherwise we email you a sign-in link.</p>
      <SignInForm returnTo={safeReturnTo(q.returnTo ?? q.callbackUrl)} initialError={q.error ?? null} initialEmail={(q.email ?? '').slice(0, 320)} continued={q.continue === '1'} />
    </AuthShell>
  );
}
