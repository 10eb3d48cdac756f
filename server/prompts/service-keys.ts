import { randomBytes } from 'node:crypto';
import { eq, or } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, serviceKeys } from '@/db/schema';
import { hashSecret } from '@/server/access/keys';
import { notFound } from '@/server/http/errors';
import { ADMIN_CLI, recordAudit } from '@/server/audit/record';

export const SERVICE_KEY_PATTERN = /^sk_live_[0-9a-f]{48}$/;

/** The caller of the tenant prompt API: one tenant (account), through one service key (credential.ts verifies it). */
export type TenantCaller = {
  tenantId: string;
  keyId: string;
  account: { rateLimitReads: number | null; rateLimitWrites: number | null };
};

export async function createServiceKey(db: Db, accountId: string) {
  const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!account) throw notFound('Account');
  const key = `sk_live_${randomBytes(24).toString('hex')}`;
  await db.transaction(async (tx) => {
    const [row] = await tx.insert(serviceKeys).values({ accountId, prefix: key.slice(0, 12), keyHash: hashSecret(key) }).returning({ id: serviceKeys.id });
    await recordAudit(tx, ADMIN_CLI, 'service_key.created', { type: 'service_key', id: row.id }, { accountId, after: { prefix: key.slice(0, 12) } });
  });
  return { tenantId: accountId, serviceKey: key };
}

/** Revokes by the key itself or by its id. */
export async function revokeServiceKey(db: Db, keyOrId: string) {
  const row = await db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(serviceKeys)
      .set({ status: 'revoked', revokedAt: new Date() })
      .where(or(eq(serviceKeys.keyHash, hashSecret(keyOrId)), eq(serviceKeys.id, keyOrId)))
      .returning();
    if (!revoked) throw notFound('Service key');
    await recordAudit(tx, ADMIN_CLI, 'service_key.revoked', { type: 'service_key', id: revoked.id }, { accountId: revoked.accountId });
    return revoked;
  });
  return { keyId: row.id, tenantId: row.accountId, revoked: true };
}
