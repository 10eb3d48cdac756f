import { randomBytes } from 'node:crypto';
import { eq, or } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, serviceKeys } from '@/db/schema';
import { hashSecret, sameHash } from '@/server/access/keys';
import { AppError, notFound, unauthorized } from '@/server/http/errors';

export const SERVICE_KEY_PATTERN = /^sk_live_[0-9a-f]{48}$/;

/** The caller of the tenant prompt API: one tenant (account), through one service key. */
export type TenantCaller = {
  tenantId: string;
  keyId: string;
  account: { rateLimitReads: number | null; rateLimitWrites: number | null };
};

export async function createServiceKey(db: Db, accountId: string) {
  const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!account) throw notFound('Account');
  const key = `sk_live_${randomBytes(24).toString('hex')}`;
  await db.insert(serviceKeys).values({ accountId, prefix: key.slice(0, 12), keyHash: hashSecret(key) });
  return { tenantId: accountId, serviceKey: key };
}

/** Revokes by the key itself or by its id. */
export async function revokeServiceKey(db: Db, keyOrId: string) {
  const [row] = await db
    .update(serviceKeys)
    .set({ status: 'revoked', revokedAt: new Date() })
    .where(or(eq(serviceKeys.keyHash, hashSecret(keyOrId)), eq(serviceKeys.id, keyOrId)))
    .returning();
  if (!row) throw notFound('Service key');
  return { keyId: row.id, tenantId: row.accountId, revoked: true };
}

/**
 * Authenticates a tenant API call. Missing or unknown keys are 401; a valid key used
 * on another tenant's path is 404, so tenant ids cannot be probed.
 */
export async function authenticateServiceKey(db: Db, headers: Pick<Headers, 'get'>, tenantId: string): Promise<TenantCaller> {
  const header = headers.get('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw unauthorized('Missing credential: send Authorization: Bearer <service key>');
  const key = match[1];
  if (key.startsWith('ak_live_')) throw unauthorized('API keys do not work on the tenant prompt API: use a service key (sk_live_)');
  if (!SERVICE_KEY_PATTERN.test(key)) throw unauthorized('Unknown or revoked service key');
  const hash = hashSecret(key);
  const [row] = await db
    .select({ key: serviceKeys, account: accounts })
    .from(serviceKeys)
    .innerJoin(accounts, eq(accounts.id, serviceKeys.accountId))
    .where(eq(serviceKeys.keyHash, hash))
    .limit(1);
  if (!row || !sameHash(row.key.keyHash, hash) || row.key.status !== 'active') throw unauthorized('Unknown or revoked service key');
  if (row.key.accountId !== tenantId) throw new AppError(404, 'not_found', 'Tenant not found');
  return {
    tenantId,
    keyId: row.key.id,
    account: { rateLimitReads: row.account.rateLimitReads, rateLimitWrites: row.account.rateLimitWrites },
  };
}
