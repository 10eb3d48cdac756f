import type { z } from 'zod';
import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { hostedSite } from '@/server/hosted/accounts';
import { forbidden } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { portalActor } from '@/server/sign-in/portal-actor';
import { safeReturnTo } from '@/server/sign-in/saml-start';
import type { CalendarHostedConnectQuery } from './oauth-contracts';
import { startCalendarConnect } from './oauth-connect';

/*
 * The hosted app's link to connect Google or Microsoft calendars (GET /api/oauth/calendar/connect),
 * acted on for the person signed in there, as the mailbox's link is (server/mailboxes/hosted.ts):
 * a navigation another site started is refused; a person not signed in goes to sign-in and back.
 */

export async function hostedCalendarConnect(db: Db, req: ApiRequest, q: z.infer<typeof CalendarHostedConnectQuery>): Promise<Response> {
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') throw forbidden('Connect a calendar from the app’s own settings page', 'cross_site_request');
  const { account, origin, secure } = await hostedSite(db, req.headers);
  const back = safeReturnTo(q.returnTo);
  const actor = await portalActor(db, account, req.headers, secure);
  if (!actor?.user) {
    const here = `/api/oauth/calendar/connect?${new URLSearchParams({ provider: q.provider, returnTo: back })}`;
    return new Response(null, { status: 302, headers: { Location: `${origin}/sign-in?${new URLSearchParams({ returnTo: here })}`, 'Cache-Control': 'no-store' } });
  }
  return startCalendarConnect(db, actor as UserActor, q.provider, req.url, `${origin}${back}`);
}
