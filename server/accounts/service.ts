import { createHash, createPublicKey } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accountCertificates, accounts, apiKeys, BROWSER_SKILL, skills } from '@/db/schema';
import { generateApiKey } from '@/server/access/keys';
import { badRequest, notFound } from '@/server/http/errors';
import { ADMIN_CLI, recordAudit } from '@/server/audit/record';
import { assertOperates, isActor, type AccountOperator } from './operator';

/** Console jobs: the admin CLI (as ADMIN_CLI) and the hosted console (as its member) call these. */
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

export async function setKillSwitch(db: Db, accountId: string, engaged: boolean, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
  const before = await existingAccount(db, accountId);
  await db.transaction(async (tx) => {
    await tx.update(accounts).set({ killSwitch: engaged }).where(eq(accounts.id, accountId));
    await recordAudit(tx, by, 'kill_switch.changed', { type: 'account', id: accountId }, { accountId, before: { killSwitch: before.killSwitch }, after: { killSwitch: engaged } });
  });
  return { accountId, killSwitch: engaged };
}

export async function setRateLimits(db: Db, accountId: string, limits: { reads: number | null; writes: number | null }, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
  await existingAccount(db, accountId);
  for (const [k, v] of Object.entries(limits)) {
    if (v !== null && (!Number.isInteger(v) || v < 1)) throw badRequest(`${k}: must be a positive integer`);
  }
  const before = await existingAccount(db, accountId);
  await db.transaction(async (tx) => {
    await tx.update(accounts).set({ rateLimitReads: limits.reads, rateLimitWrites: limits.writes }).where(eq(accounts.id, accountId));
    await recordAudit(tx, by, 'rate_limits.changed', { type: 'account', id: accountId }, { accountId, before: { reads: before.rateLimitReads, writes: before.rateLimitWrites }, after: limits });
  });
  return { accountId, reads: limits.reads, writes: limits.writes };
}

/** Registers an RSA public key (SPKI PEM) for certificate tokens; its id is the `kid`. */
export async function registerCertificate(db: Db, accountId: string, publicKeyPem: string, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
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
    await recordAudit(tx, by, 'certificate.registered', { type: 'certificate', id: row.id }, { accountId });
    return row;
  });
  return { kid: cert.id };
}

/** Revokes a certificate: tokens signed with its key are refused (401) from then on. An actor reaches only its own account's (404 otherwise). */
export async function revokeCertificate(db: Db, kid: string, by: AccountOperator = ADMIN_CLI) {
  await db.transaction(async (tx) => {
    const scope = isActor(by) ? and(eq(accountCertificates.id, kid), eq(accountCertificates.accountId, by.accountId)) : eq(accountCertificates.id, kid);
    const [cert] = await tx.update(accountCertificates).set({ revokedAt: new Date() }).where(scope).returning();
    if (!cert) throw notFound('Certificate');
    assertOperates(by, cert.accountId);
    await recordAudit(tx, by, 'certificate.revoked', { type: 'certificate', id: kid }, { accountId: cert.accountId });
  });
  return { kid, revoked: true };
}

/** The account's certificates, newest first: the `kid`, when it was registered and revoked, and the key's SHA-256 fingerprint (the PEM is public, but a list needs no more). */
export async function listCertificates(db: Db, accountId: string, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
  const rows = await db.select().from(accountCertificates).where(eq(accountCertificates.accountId, accountId)).orderBy(desc(accountCertificates.createdAt), desc(accountCertificates.id));
  return {
    ok: true as const,
    certificates: rows.map((c) => ({
      kid: c.id,
      fingerprint: createHash('sha256').update(createPublicKey(c.publicKeyPem).export({ type: 'spki', format: 'der' })).digest('hex'),
      status: c.revokedAt ? ('revoked' as const) : ('active' as const),
      createdAt: c.createdAt.toISOString(),
      revokedAt: c.revokedAt ? c.revokedAt.toISOString() : null,
    })),
  };
}

/** What the console's settings pages show of the account itself: its name, the kill switch, its rate limits (null: the deployment's). */
export async function accountSettings(db: Db, accountId: string, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
  const a = await existingAccount(db, accountId);
  return { ok: true as const, account: { id: a.id, name: a.name, killSwitch: a.killSwitch, hostedDomain: a.hostedDomain, rateLimits: { reads: a.rateLimitReads, writes: a.rateLimitWrites } } };
}
