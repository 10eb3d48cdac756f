import { randomBytes } from 'node:crypto';
import { requestHost } from '@/server/http/public-origin';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, organizations } from '@/db/schema';
import { hashSecret, sameHash } from '@/server/access/keys';
import type { Actor } from '@/server/access/actor';
import { BareRefusal } from '@/server/http/errors';
import { organizationFor } from '@/server/organizations/access';
import { scimError } from './errors';

export type ScimCaller = { accountId: string; organizationId: string; account: { rateLimitReads: number | null; rateLimitWrites: number | null } };

/**
 * Mints (or rotates) the organization's SCIM bearer token: shown once, kept as a hash.
 * Minting turns SCIM on for the organization.
 */
export async function mintScimToken(db: Db, actor: Actor, orgId: string, endpointBase: string) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  const token = `scim_${randomBytes(32).toString('hex')}`;
  const tokenCreatedAt = new Date().toISOString();
  const endpoint = `${endpointBase}/api/scim/v2`;
  await db
    .update(organizations)
    .set({ scim: { enabled: true, endpoint, tokenHash: hashSecret(token), tokenCreatedAt } })
    .where(eq(organizations.id, org.id));
  return { ok: true as const, token, tokenCreatedAt, endpoint };
}

/** Finds the organization whose SCIM token this is; anything else is a SCIM 401. */
export async function authenticateScim(db: Db, headers: Pick<Headers, 'get'>): Promise<ScimCaller> {
  const token = /^Bearer\s+(scim_[0-9a-f]{64})\s*$/i.exec(headers.get('authorization') ?? '')?.[1];
  const refuse = () => new BareRefusal(401, scimError(401, 'A valid SCIM bearer token is required'), { 'Content-Type': 'application/scim+json' });
  if (!token) throw refuse();
  const hash = hashSecret(token);
  const [row] = await db
    .select({ org: organizations, account: accounts })
    .from(organizations)
    .innerJoin(accounts, eq(accounts.id, organizations.accountId))
    .where(sql`${organizations.scim}->>'tokenHash' = ${hash}`)
    .limit(1);
  if (!row || !sameHash(String(row.org.scim?.tokenHash), hash)) throw refuse();
  // On another account's hosted domain a token of this account is no token (hosts select accounts).
  const host = requestHost(headers) ?? '';
  if (host && row.account.hostedDomain !== host) {
    const [owner] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.hostedDomain, host));
    if (owner && owner.id !== row.account.id) throw refuse();
  }
  return { accountId: row.org.accountId, organizationId: row.org.id, account: { rateLimitReads: row.account.rateLimitReads, rateLimitWrites: row.account.rateLimitWrites } };
}
