import { createPublicKey } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accountCertificates, accounts, apiKeys } from '@/db/schema';
import { generateApiKey } from '@/server/access/keys';
import { badRequest, notFound } from '@/server/http/errors';

/** Console jobs, reached through the admin CLI until the hosted console exists. */
export async function createAccount(db: Db, name: string) {
  return db.transaction(async (tx) => {
    const [account] = await tx.insert(accounts).values({ name }).returning();
    const { key, hash, prefix } = generateApiKey();
    await tx.insert(apiKeys).values({ accountId: account.id, label: 'Initial account key', prefix, keyHash: hash });
    return { accountId: account.id, apiKey: key };
  });
}

async function existingAccount(db: Db, accountId: string) {
  const [a] = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!a) throw notFound('Account');
  return a;
}

export async function setKillSwitch(db: Db, accountId: string, engaged: boolean) {
  await existingAccount(db, accountId);
  await db.update(accounts).set({ killSwitch: engaged }).where(eq(accounts.id, accountId));
  return { accountId, killSwitch: engaged };
}

export async function setRateLimits(db: Db, accountId: string, limits: { reads: number | null; writes: number | null }) {
  await existingAccount(db, accountId);
  for (const [k, v] of Object.entries(limits)) {
    if (v !== null && (!Number.isInteger(v) || v < 1)) throw badRequest(`${k}: must be a positive integer`);
  }
  await db.update(accounts).set({ rateLimitReads: limits.reads, rateLimitWrites: limits.writes }).where(eq(accounts.id, accountId));
  return { accountId, reads: limits.reads, writes: limits.writes };
}

/** Registers an RSA public key (SPKI PEM) for certificate tokens; its id is the `kid`. */
export async function registerCertificate(db: Db, accountId: string, publicKeyPem: string) {
  await existingAccount(db, accountId);
  let key;
  try {
    key = createPublicKey(publicKeyPem);
  } catch {
    throw badRequest('public-key: not a PEM public key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw badRequest('public-key: must be an RSA key (tokens are RS256)');
  const pem = key.export({ type: 'spki', format: 'pem' }).toString();
  const [cert] = await db.insert(accountCertificates).values({ accountId, publicKeyPem: pem }).returning();
  return { kid: cert.id };
}

export async function revokeCertificate(db: Db, kid: string) {
  const [cert] = await db
    .update(accountCertificates)
    .set({ revokedAt: new Date() })
    .where(eq(accountCertificates.id, kid))
    .returning();
  if (!cert) throw notFound('Certificate');
  return { kid, revoked: true };
}
