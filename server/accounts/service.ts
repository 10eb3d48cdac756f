import { createPublicKey } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accountCertificates, accounts, apiKeys, BROWSER_SKILL, skills } from '@/db/schema';
import { generateApiKey } from '@/server/access/keys';
import { badRequest, notFound } from '@/server/http/errors';
import { ADMIN_CLI, recordAudit } from '@/server/audit/record';

/** Console jobs, reached through the admin CLI until the hosted console exists. */
export async function createAccount(db: Db, name: string) {
  return db.transaction(async (tx) => {
    const [account] = await tx.insert(accounts).values({ name }).returning();
    const { key, hash, prefix } = generateApiKey();
    await tx.insert(apiKeys).values({ accountId: account.id, label: 'Initial account key', prefix, keyHash: hash });
    // A new account's agents may use the workspace browser until the account uninstalls it (DELETE /skills/{id}).
    await tx.insert(skills).values({ accountId: account.id, kind: 'browser', name: BROWSER_SKILL.name, title: BROWSER_SKILL.title, description: BROWSER_SKILL.description });
    return { accountId: account.id, apiKey: key };
  });
}

async function existingAccount(db: Db, accountId: string) {
  const [a] = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!a) throw notFound('Account');
  return a;
}

export async function setKillSwitch(db: Db, accountId: string, engaged: boolean) {
  const before = await existingAccount(db, accountId);
  await db.transaction(async (tx) => {
    await tx.update(accounts).set({ killSwitch: engaged }).where(eq(accounts.id, accountId));
    await recordAudit(tx, ADMIN_CLI, 'kill_switch.changed', { type: 'account', id: accountId }, { accountId, before: { killSwitch: before.killSwitch }, after: { killSwitch: engaged } });
  });
  return { accountId, killSwitch: engaged };
}

export async function setRateLimits(db: Db, accountId: string, limits: { reads: number | null; writes: number | null }) {
  await existingAccount(db, accountId);
  for (const [k, v] of Object.entries(limits)) {
    if (v !== null && (!Number.isInteger(v) || v < 1)) throw badRequest(`${k}: must be a positive integer`);
  }
  const before = await existingAccount(db, accountId);
  await db.transaction(async (tx) => {
    await tx.update(accounts).set({ rateLimitReads: limits.reads, rateLimitWrites: limits.writes }).where(eq(accounts.id, accountId));
    await recordAudit(tx, ADMIN_CLI, 'rate_limits.changed', { type: 'account', id: accountId }, { accountId, before: { reads: before.rateLimitReads, writes: before.rateLimitWrites }, after: limits });
  });
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
  const cert = await db.transaction(async (tx) => {
    const [row] = await tx.insert(accountCertificates).values({ accountId, publicKeyPem: pem }).returning();
    await recordAudit(tx, ADMIN_CLI, 'certificate.registered', { type: 'certificate', id: row.id }, { accountId });
    return row;
  });
  return { kid: cert.id };
}

export async function revokeCertificate(db: Db, kid: string) {
  await db.transaction(async (tx) => {
    const [cert] = await tx.update(accountCertificates).set({ revokedAt: new Date() }).where(eq(accountCertificates.id, kid)).returning();
    if (!cert) throw notFound('Certificate');
    await recordAudit(tx, ADMIN_CLI, 'certificate.revoked', { type: 'certificate', id: kid }, { accountId: cert.accountId });
  });
  return { kid, revoked: true };
}
