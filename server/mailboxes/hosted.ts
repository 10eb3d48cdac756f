import type { z } from 'zod';
import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { hostedSite } from '@/server/hosted/accounts';
import { forbidden } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { portalActor } from '@/server/sign-in/portal-actor';
import { safeReturnTo } from '@/server/sign-in/saml-start';
import { startMailboxConnect } from './connect';
import type { HostedConnectQuery } from './contracts';

/*
 * The hosted app's way in: a plain link on its settings page (GET /api/oauth/mailbox/connect),
 * acted on for the person signed in there (the session cookie, as tRPC reads it). A navigation
 * another site started (Sec-Fetch-Site: cross-site or same-site) is refused, so no page can make
 * a signed-in browser start a connection; a person not signed in goes to sign-in and comes back.
 */

export async function hostedMailboxConnect(db: Db, req: ApiRequest, q: z.infer<typeof HostedConnectQuery>): Promise<Response> {
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') throw forbidden('Connect a mailbox from the app’s own settings page', 'cross_site_request');
  const { account, origin, secure } = await hostedSite(db, req.headers);
  const back = safeReturnTo(q.returnTo);
  const actor = await portalActor(db, account, req.headers, secure);
  if (!actor?.user) {
    const here = `/api/oauth/mailbox/connect?${new URLSearchParams({ provider: q.provider, returnTo: back })}`;
    return new Response(null, { status: 302, headers: { Location: `${origin}/sign-in?${new URLSearchParams({ returnTo: here })}`, 'Cache-Control': 'no-store' } });
  }
  return startMailboxConnect(db, actor as UserActor, q.provider, req.url, `${origin}${back}`);
}
