'use client';
import { useEffect, useRef, useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Field } from '@/app/_ui/field';
import { Button } from '@/app/_ui/button';
import { Input } from '@/app/_ui/controls';

const MESSAGES: Record<string, string> = {
  sso_required: 'Your organization requires single sign-on. Enter your work email to continue with your organization’s identity provider.',
  account_blocked: 'This account is inactive or suspended. Ask your administrator.',
  Verification: 'That sign-in link has expired or was already used. Ask for a new one.',
};

/** Step one asks only for an email: SSO users go to their IdP, everyone else gets a link by email. */
export function SignInForm({ returnTo, initialError, initialEmail, continued }: { returnTo: string; initialError: string | null; initialEmail: string; continued: boolean }) {
  const [email, setEmail] = useState(initialEmail);
  const input = useRef<HTMLInputElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const [pending, setPending] = useState(false);
  useEffect(() => {
    // Whatever was typed while the page was still static is what the person meant.
    if (input.current?.value) setEmail(input.current.value);
    // Continue pressed before the script ran submitted the form natively: a GET back here with
    // ?email=…&continue=1. The person asked for the link, so it is asked for now, once (the marker
    // leaves the address bar, so a reload does not ask again), and only when this page sent them.
    if (!continued) return;
    const url = new URL(window.location.href);
    url.searchParams.delete('continue');
    window.history.replaceState(null, '', url);
    const fromHere = document.referrer !== '' && new URL(document.referrer).origin === window.location.origin;
    if (fromHere && input.current?.value) form.current?.requestSubmit();
  }, [continued]);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(initialError ? (MESSAGES[initialError] ?? 'Sign-in failed. Try again.') : null);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      const route = await trpc.auth.start.mutate({ email, returnTo });
      if (route.method === 'saml') {
        // Only an http(s) address leaves this page (never javascript: or data:), whatever the server sent.
        const target = new URL(route.redirectUrl, window.location.href);
        if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error('unexpected sign-in address');
        window.location.assign(target.href);
        return;
      }
      const { csrfToken } = (await (await fetch('/api/auth/csrf')).json()) as { csrfToken: string };
      const res = await fetch('/api/auth/signin/email', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email, csrfToken, callbackUrl: returnTo, json: 'true' }),
      });
      const body = (await res.json().catch(() => null)) as { url?: string; error?: string; error_code?: string } | null;
      const refused = !res.ok ? (body?.error_code ?? 'failed') : body?.url && new URL(body.url, window.location.href).searchParams.get('error');
      if (refused) setError(MESSAGES[refused] ?? body?.error ?? 'Sign-in failed. Try again.');
      else setSent(true);
    } catch (err) {
      const { message, code } = describeError(err);
      setError((code && MESSAGES[code]) || message);
    } finally {
      setPending(false);
    }
  }

  if (sent)
    return (
      <p role="status" className="text-ok">
        Check your email: we sent a sign-in link to <strong>{email}</strong>. It works once, for 15 minutes.
      </p>
    );
  return (
    <form ref={form} method="get" action="/sign-in" onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
      <input type="hidden" name="continue" value="1" />
      <input type="hidden" name="returnTo" value={returnTo} />
      <div className="flex flex-col gap-3">
        <Field id="email" label="Work email">
          <Input ref={input} id="email" name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Button type="submit" className="w-full justify-center" disabled={pending}>
          {pending ? 'Continuing…' : 'Continue'}
        </Button>
      </div>
      <p id="sign-in-error" role="alert" className="mt-2 text-sm text-danger">
        {error ?? ''}
      </p>
    </form>
  );
}
