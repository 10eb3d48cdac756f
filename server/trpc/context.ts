import type { Db } from '@/db/client';
import type { AccountRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { accountForHost } from '@/server/hosted/accounts';
import { hostedOrigin } from '@/server/hosted/origin';
import { notFound } from '@/server/http/errors';
import { portalActor } from '@/server/sign-in/portal-actor';

export type PortalContext = { db: Db; account: AccountRow; site: { origin: string; secure: boolean }; actor: Actor | null };

/** What every hosted-app call knows: the account (by Host), its origin, and the signed-in actor if any. */
export async function portalContext(db: Db, headers: Pick<Headers, 'get'>): Promise<PortalContext> {
  const account = await accountForHost(db, headers.get('host'));
  if (!account) throw notFound('Hosted app');
  const site = hostedOrigin(headers, account.hostedDomain);
  return { db, account, site, actor: await portalActor(db, account, headers, site.secure) };
}
