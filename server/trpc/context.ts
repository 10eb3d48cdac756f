import type { Db } from '@/db/client';
import type { AccountRow, ConsoleMemberRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { hostedSite } from '@/server/hosted/accounts';
import { clientAddress } from '@/server/http/public-origin';
import { portalActor } from '@/server/sign-in/portal-actor';

/**
 * What one server render asks more than once and may answer once (its page, frame and sections
 * each call procedures): set only by a page's render (app/_lib/server-caller.ts), whose context
 * lives for that one request. A caller kept across requests (the browser's tRPC, a test's) has none
 * and asks every time.
 */
export type RenderMemo = { consoleMember?: Promise<{ actor: Actor; member: ConsoleMemberRow } | null> };

export type PortalContext = { db: Db; account: AccountRow; site: { origin: string; secure: boolean }; actor: Actor | null; clientIp: string; memo?: RenderMemo };

/**
 * What every hosted-app call knows: the account (by host), its configured origin, the signed-in
 * actor if any, and the client's address (set by Steward's front in X-Forwarded-For).
 */
export async function portalContext(db: Db, headers: Pick<Headers, 'get'>, site?: Awaited<ReturnType<typeof hostedSite>>): Promise<PortalContext> {
  // A server-rendered page resolves the site once per request and shares it (app/_lib/server-caller.ts).
  const { account, origin, secure } = site ?? (await hostedSite(db, headers));
  return { db, account, site: { origin, secure }, actor: await portalActor(db, account, headers, secure), clientIp: clientAddress(headers) };
}
