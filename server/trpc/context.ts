import type { Db } from '@/db/client';
import type { AccountRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { hostedSite } from '@/server/hosted/accounts';
import { portalActor } from '@/server/sign-in/portal-actor';

export type PortalContext = { db: Db; account: AccountRow; site: { origin: string; secure: boolean }; actor: Actor | null };

/** What every hosted-app call knows: the account (by Host), its origin, and the signed-in actor if any. */
export async function portalContext(db: Db, headers: Pick<Headers, 'get'>): Promise<PortalContext> {
  const { account, origin, secure } = await hostedSite(db, headers);
  return { db, account, site: { origin, secure }, actor: await portalActor(db, account, headers, secure) };
}
