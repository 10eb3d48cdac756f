import Link from 'next/link';
import { headers } from 'next/headers';
import { sharedDatabase } from '@/db/client';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { NeedsMeList } from './_home/needs-me-list';
import { HostedFrame } from './_ui/layout';
import ui from './_ui/ui.module.css';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Home · Steward' };

/** The signed-in person and what needs them, or null when signed out (or no hosted app answers here). */
async function signedIn() {
  try {
    const ctx = await portalContext(sharedDatabase().db, await headers());
    const api = appRouter.createCaller(ctx);
    const me = await api.auth.me();
    if (!me) return null;
    return { me, needs: await api.inbox.list({ limit: 50 }) };
  } catch {
    // No hosted app on this domain (or no account yet): the product's front page.
    return null;
  }
}

export default async function Home() {
  const signed = await signedIn();
  if (!signed)
    return (
      <HostedFrame me={null} title="Steward">
        <p>An open, self-hostable platform for AI assistants that work for end users.</p>
        <ul>
          <li>
            <Link href="/sign-in">Sign in</Link> to your organization’s hosted app
          </li>
          <li>
            <a href="/docs">API reference</a> (interactive)
          </li>
          <li>
            <a href="/api/openapi.json">OpenAPI 3.1 document</a>
          </li>
        </ul>
      </HostedFrame>
    );
  const { me, needs } = signed;
  return (
    <HostedFrame me={me} title={`Welcome, ${me.user.name ?? me.user.email}`} needsMe={needs.total}>
      <p className={ui.muted}>
        {me.organization ? `${me.organization.role === 'admin' ? 'Admin' : 'Member'} of ${me.organization.name}. ` : ''}
        <Link href="/chats">Talk to your assistant</Link> or <Link href="/tasks">see every task</Link>.
      </p>
      <NeedsMeList initial={needs.items} total={needs.total} />
    </HostedFrame>
  );
}
