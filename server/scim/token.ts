import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { organizations } from '@/db/schema';
import { hashSecret } from '@/server/access/keys';
import type { Actor } from '@/server/access/actor';
import { organizationFor } from '@/server/organizations/access';
import { recordAudit } from '@/server/audit/record';

/** The caller of the SCIM endpoints: one organization, through its SCIM token (credential.ts verifies it). */
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
  await db.transaction(async (tx) => {
    await tx.update(organizations).set({ scim: { enabled: true, endpoint, tokenHash: hashSecret(token), tokenCreatedAt } }).where(eq(organizations.id, org.id));
    await recordAudit(tx, actor, 'scim_token.created', { type: 'organization', id: org.id }, { organizationId: org.id, before: { hadToken: Boolean(org.scim?.tokenHash) }, after: { enabled: true, endpoint, tokenCreatedAt } });
  });
  return { ok: true as const, token, tokenCreatedAt, endpoint };
}

/** The caller and the SCIM base URL of the request (…/api/scim/v2), which every `meta.location` starts with. */
export type ScimScope = ScimCaller & { base: string };
