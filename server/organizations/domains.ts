import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, lt, ne, or } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { organizationDomains, type OrganizationDomainRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, notFound } from '@/server/http/errors';
import { organizationFor } from './access';
import type { AddDomainBody, UpdateDomainBody } from './domains-contracts';
import { lookupTxt } from './dns';
import { recordAudit, SYSTEM, type AuditActor } from '@/server/audit/record';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
export const txtRecordName = (domain: string) => `_svc-verification.${domain}`;

export const toPublicDomain = (d: OrganizationDomainRow) => ({
  id: d.id,
  domain: d.domain,
  source: d.source,
  verified: d.verified,
  autoJoin: d.autoJoin,
  txtRecordName: txtRecordName(d.domain),
  txtRecordValue: d.txtRecordValue,
  verifiedAt: iso(d.verifiedAt),
  lastCheckedAt: iso(d.lastCheckedAt),
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

export async function listDomains(db: Db, actor: Actor, orgId: string) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  const rows = await db.select().from(organizationDomains).where(eq(organizationDomains.organizationId, org.id)).orderBy(asc(organizationDomains.createdAt));
  return { ok: true as const, domains: rows.map(toPublicDomain) };
}

/**
 * A claim proves nothing until its TXT record is found, so it never locks the domain: another
 * organization of the account may claim it too, and whichever verifies first keeps it. Only a
 * verified claim (and the organization's own claim) refuses a new one.
 */
export async function addDomain(db: Db, actor: Actor, orgId: string, input: z.infer<typeof AddDomainBody>) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  const claims = await db
    .select({ organizationId: organizationDomains.organizationId, verified: organizationDomains.verified })
    .from(organizationDomains)
    .where(and(eq(organizationDomains.accountId, actor.accountId), eq(organizationDomains.domain, input.domain)));
  if (claims.some((c) => c.organizationId === org.id)) throw badRequest(`domain: ${input.domain} was already added`);
  if (claims.some((c) => c.verified)) throw badRequest(`domain: ${input.domain} is verified by another organization of this account`);
  const row = await db.transaction(async (tx) => {
    const [added] = await tx
      .insert(organizationDomains)
      .values({ accountId: actor.accountId, organizationId: org.id, domain: input.domain, autoJoin: input.autoJoin ?? false, txtRecordValue: `svc-${randomBytes(16).toString('hex')}` })
      .onConflictDoNothing()
      .returning();
    // Lost a race with this organization's own identical request.
    if (!added) throw badRequest(`domain: ${input.domain} was already added`);
    await recordAudit(tx, actor, 'domain.added', { type: 'domain', id: added.id }, { organizationId: org.id, after: { domain: added.domain, autoJoin: added.autoJoin } });
    return added;
  });
  return { ok: true as const, domain: toPublicDomain(row) };
}

async function domainOf(db: Db, actor: Actor, orgId: string, domainId: string) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  const [d] = await db.select().from(organizationDomains).where(and(eq(organizationDomains.id, domainId), eq(organizationDomains.organizationId, org.id)));
  if (!d) throw notFound('Domain');
  return d;
}

/** Looks the TXT record up; not found (or DNS failing) is 400 with lastCheckedAt updated and nothing else changed. */
export async function verifyDomain(db: Db, actor: Actor, orgId: string, domainId: string) {
  const d = await domainOf(db, actor, orgId, domainId);
  if (d.verified) throw badRequest('domain: already verified');
  const outcome = await checkTxt(db, d, new Date(), actor);
  if (outcome.error) throw badRequest(outcome.error, { domain: toPublicDomain(outcome.row) });
  return { ok: true as const, domain: toPublicDomain(outcome.row) };
}

async function checkTxt(db: Db, d: OrganizationDomainRow, now: Date, by: Actor | AuditActor = SYSTEM): Promise<{ row: OrganizationDomainRow; error: string | null }> {
  let found = false;
  let error: string | null = null;
  try {
    found = (await lookupTxt(txtRecordName(d.domain))).includes(d.txtRecordValue);
    if (!found) error = `TXT record not found yet: publish ${txtRecordName(d.domain)} = ${d.txtRecordValue}, then verify again after DNS propagation`;
  } catch (e) {
    error = `DNS lookup failed: ${(e as { code?: string }).code ?? (e as Error).message}`;
  }
  if (found) {
    const won = await claimVerified(db, d, now, by);
    if (won) return { row: won, error: null };
    error = `domain: ${d.domain} was verified by another organization of this account first`;
  }
  const [row] = await db.update(organizationDomains).set({ lastCheckedAt: now }).where(eq(organizationDomains.id, d.id)).returning();
  return { row: row ?? d, error };
}

/**
 * Marks the claim verified and removes the other organizations' unverified claims on the same
 * domain: they can never verify now, and a claim left behind would only mislead its admins.
 * Null when another organization holds it verified, or this claim was just removed. Every
 * claim on the domain is locked in one order first, so two organizations verifying at once
 * queue instead of deadlocking; the partial unique index stays the last word.
 */
async function claimVerified(db: Db, d: OrganizationDomainRow, now: Date, by: Actor | AuditActor): Promise<OrganizationDomainRow | null> {
  try {
    return await db.transaction(async (tx) => {
      const claims = await tx
        .select({ id: organizationDomains.id, verified: organizationDomains.verified })
        .from(organizationDomains)
        .where(and(eq(organizationDomains.accountId, d.accountId), eq(organizationDomains.domain, d.domain)))
        .orderBy(asc(organizationDomains.id))
        .for('update');
      if (!claims.some((c) => c.id === d.id) || claims.some((c) => c.verified && c.id !== d.id)) return null;
      const [row] = await tx.update(organizationDomains).set({ verified: true, verifiedAt: now, lastCheckedAt: now }).where(eq(organizationDomains.id, d.id)).returning();
      await tx.delete(organizationDomains).where(and(eq(organizationDomains.accountId, d.accountId), eq(organizationDomains.domain, d.domain), ne(organizationDomains.id, d.id)));
      await recordAudit(tx, by, 'domain.verified', { type: 'domain', id: d.id }, { accountId: d.accountId, organizationId: d.organizationId, after: { domain: d.domain, verified: true } });
      return row;
    });
  } catch (e) {
    if (violates(e, 'organization_domains_verified_domain')) return null;
    throw e;
  }
}

/** Whether a PostgreSQL error (direct, or as a driver wrapper's cause) is this unique index refusing a row. */
function violates(e: unknown, index: string): boolean {
  for (let cur = e, i = 0; cur && typeof cur === 'object' && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; constraint?: unknown };
    if (c.code === '23505') return c.constraint === index;
  }
  return false;
}

export async function updateDomain(db: Db, actor: Actor, orgId: string, domainId: string, input: z.infer<typeof UpdateDomainBody>) {
  const d = await domainOf(db, actor, orgId, domainId);
  if (d.source === 'sso') throw badRequest('domain: added by the SSO configuration; change it there');
  const row = await db.transaction(async (tx) => {
    const [changed] = await tx.update(organizationDomains).set({ autoJoin: input.autoJoin }).where(eq(organizationDomains.id, d.id)).returning();
    await recordAudit(tx, actor, 'domain.updated', { type: 'domain', id: d.id }, { organizationId: d.organizationId, before: { domain: d.domain, autoJoin: d.autoJoin }, after: { domain: d.domain, autoJoin: changed.autoJoin } });
    return changed;
  });
  return { ok: true as const, domain: toPublicDomain(row) };
}

/**
 * Removes a claim, verified or not; its autoJoin and SSO coverage end with it, while people
 * who already joined stay. Domains the SSO configuration added are managed there (400).
 */
export async function deleteDomain(db: Db, actor: Actor, orgId: string, domainId: string) {
  const d = await domainOf(db, actor, orgId, domainId);
  if (d.source === 'sso') throw badRequest('domain: added by the SSO configuration; remove it there');
  await db.transaction(async (tx) => {
    await tx.delete(organizationDomains).where(eq(organizationDomains.id, d.id));
    await recordAudit(tx, actor, 'domain.removed', { type: 'domain', id: d.id }, { organizationId: d.organizationId, before: { domain: d.domain, verified: d.verified, autoJoin: d.autoJoin } });
  });
  return { ok: true as const, domain: { id: d.id, deleted: true as const, message: `${d.domain} removed from the organization` } };
}

/**
 * The scheduled re-check: unverified domains younger than 72 hours, not checked in the
 * last hour, are looked up again and verified when their record has appeared.
 */
export async function recheckUnverifiedDomains(db: Db, now: Date) {
  const due = await db
    .select()
    .from(organizationDomains)
    .where(
      and(
        eq(organizationDomains.verified, false),
        gt(organizationDomains.createdAt, new Date(now.getTime() - 72 * 3_600_000)),
        or(isNull(organizationDomains.lastCheckedAt), lt(organizationDomains.lastCheckedAt, new Date(now.getTime() - 3_600_000 + 60_000))),
      ),
    );
  let verified = 0;
  for (const d of due) if (!(await checkTxt(db, d, now)).error) verified++;
  return { checked: due.length, verified };
}

/** The organization that verified this email's domain with autoJoin, if any. */
export async function autoJoinOrganization(db: Db, accountId: string, email: string): Promise<string | null> {
  const domain = email.split('@')[1];
  const [d] = await db
    .select({ organizationId: organizationDomains.organizationId })
    .from(organizationDomains)
    .where(and(eq(organizationDomains.accountId, accountId), eq(organizationDomains.domain, domain), eq(organizationDomains.verified, true), eq(organizationDomains.autoJoin, true)));
  return d?.organizationId ?? null;
}

/** The organization that verified this email's domain (autoJoin or not), if any. */
export async function verifyingOrganization(db: Db, accountId: string, email: string): Promise<string | null> {
  const domain = email.split('@')[1];
  const [d] = await db
    .select({ organizationId: organizationDomains.organizationId })
    .from(organizationDomains)
    .where(and(eq(organizationDomains.accountId, accountId), eq(organizationDomains.domain, domain), eq(organizationDomains.verified, true)));
  return d?.organizationId ?? null;
}
