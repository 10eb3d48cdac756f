import { randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull, lt, or } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { organizationDomains, type OrganizationDomainRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, notFound } from '@/server/http/errors';
import { organizationFor } from './access';
import { lookupTxt } from './dns';

export const DomainResponse = z.object({
  id: z.string(),
  domain: z.string(),
  source: z.enum(['manual', 'sso']),
  verified: z.boolean(),
  autoJoin: z.boolean(),
  txtRecordName: z.string(),
  txtRecordValue: z.string(),
  verifiedAt: z.string().nullable(),
  lastCheckedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const HOSTNAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;
export const AddDomainBody = z.object({
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .transform((d) => d.replace(/\.$/, ''))
    .pipe(z.string().regex(HOSTNAME, 'must be a domain such as example.org')),
  autoJoin: z.boolean().optional(),
});
export const UpdateDomainBody = z.object({ autoJoin: z.boolean() });

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

export async function addDomain(db: Db, actor: Actor, orgId: string, input: z.infer<typeof AddDomainBody>) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  const [row] = await db
    .insert(organizationDomains)
    .values({ accountId: actor.accountId, organizationId: org.id, domain: input.domain, autoJoin: input.autoJoin ?? false, txtRecordValue: `svc-${randomBytes(16).toString('hex')}` })
    .onConflictDoNothing()
    .returning();
  if (!row) throw badRequest(`domain: ${input.domain} was already added`);
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
  const outcome = await checkTxt(db, d, new Date());
  if (outcome.error) throw badRequest(outcome.error, { domain: toPublicDomain(outcome.row) });
  return { ok: true as const, domain: toPublicDomain(outcome.row) };
}

async function checkTxt(db: Db, d: OrganizationDomainRow, now: Date): Promise<{ row: OrganizationDomainRow; error: string | null }> {
  let found = false;
  let error: string | null = null;
  try {
    found = (await lookupTxt(txtRecordName(d.domain))).includes(d.txtRecordValue);
    if (!found) error = `TXT record not found yet: publish ${txtRecordName(d.domain)} = ${d.txtRecordValue}, then verify again after DNS propagation`;
  } catch (e) {
    error = `DNS lookup failed: ${(e as { code?: string }).code ?? (e as Error).message}`;
  }
  const [row] = await db
    .update(organizationDomains)
    .set(found ? { verified: true, verifiedAt: now, lastCheckedAt: now } : { lastCheckedAt: now })
    .where(eq(organizationDomains.id, d.id))
    .returning();
  return { row, error };
}

export async function updateDomain(db: Db, actor: Actor, orgId: string, domainId: string, input: z.infer<typeof UpdateDomainBody>) {
  const d = await domainOf(db, actor, orgId, domainId);
  if (d.source === 'sso') throw badRequest('domain: added by the SSO configuration; change it there');
  const [row] = await db.update(organizationDomains).set({ autoJoin: input.autoJoin }).where(eq(organizationDomains.id, d.id)).returning();
  return { ok: true as const, domain: toPublicDomain(row) };
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
