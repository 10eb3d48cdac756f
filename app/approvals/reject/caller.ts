import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { sharedDatabase } from '@/db/client';
import { serverCaller } from '@/app/_lib/server-caller';
import { rejectLinkSite } from '@/server/approvals/reject-link';
import { clientAddress, publicOrigin, requestHost } from '@/server/http/public-origin';
import { appRouter } from '@/server/trpc/app-router';
import type { PortalContext } from '@/server/trpc/context';

/**
 * The tRPC caller the reject page and its button use. On a host that selects an account it is
 * the hosted app's usual caller (with the browser's session). On the public origin shared by
 * several accounts without a hosted domain, no host selects the account: the link's token names
 * it (rejectLinkSite), and the caller acts for nobody signed in, which is all the reject
 * procedures need. Null: on the public origin, no account for this token (the page says the link
 * is not valid); on any other host that selects no account, the page is not found, as every
 * hosted page there.
 */
export async function rejectCaller(token: string) {
  const h = await headers();
  const db = sharedDatabase().db;
  const site = await rejectLinkSite(db, h, token);
  if (!site) {
    const host = requestHost(h);
    if (host !== null && host !== publicOrigin().host) notFound();
    return null;
  }
  if (site.selectedByHost) return { ...(await serverCaller()), selectedByHost: true };
  const ctx: PortalContext = { db, account: site.account, site: { origin: site.origin, secure: site.secure }, actor: null, clientIp: clientAddress(h) };
  return { ctx, api: appRouter.createCaller(ctx), selectedByHost: false };
}
