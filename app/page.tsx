import Link from 'next/link';
import { headers } from 'next/headers';
import { sharedDatabase } from '@/db/client';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { HostedFrame } from './_ui/layout';

export const dynamic = 'force-dynamic';

async function signedIn() {
  try {
    const ctx = await portalContext(sharedDatabase().db, await headers());
    return await appRouter.createCaller(ctx).auth.me();
  } catch {
    // No hosted app on this domain (or no account yet): the product's front page.
    return null;
  }
}

export default async function Home() {
  const me = await signedIn();
  if (!me)
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
  return (
    <HostedFrame me={me} title={`Welcome, ${me.user.name ?? me.user.email}`}>
      {me.organization ? (
        <p>
          You are {me.organization.role === 'admin' ? 'an admin' : 'a member'} of <Link href={`/organizations/${me.organization.id}`}>{me.organization.name}</Link>.
        </p>
      ) : (
        <p>You do not belong to an organization.</p>
      )}
      <p>
        <Link href="/approvals">Approvals</Link>: what your assistants staged and wait for you to approve
      </p>
      <p>
        <Link href="/invitations">Invitations</Link> from organizations, to accept or decline
      </p>
      <h2>Your teams</h2>
      <ul>
        {me.teams.map((t) => (
          <li key={t.id}>
            <Link href={`/teams/${t.id}`}>{t.name}</Link> ({t.role}
            {t.status === 'invited' ? ', invited' : ''})
          </li>
        ))}
      </ul>
    </HostedFrame>
  );
}
