import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { organizations, type OrganizationRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { browserUrlProblem } from '@/server/http/browser-url';
import { badRequest, invalidFields } from '@/server/http/errors';
import { administersOrganization, organizationFor } from './access';
import { parseIdpMetadata } from './idp-metadata';
import { Certificate, type SsoBody } from './sso-contracts';
import { recordAudit } from '@/server/audit/record';

const DEFAULTS = {
  enabled: false,
  enforced: false,
  provider: 'saml_generic',
  saml: {
    entryPoint: null,
    logoutUrl: null,
    issuer: null,
    signatureAlgorithm: 'sha256',
    allowIdpInitiated: false,
    spEntityId: null,
    acsUrl: null,
    sloUrl: null,
    attributeMapping: { email: 'email', firstName: 'firstName', lastName: 'lastName', groups: 'groups' },
    groupFilter: { enabled: false, allowedGroups: [], requireAll: false },
    groupRoleMapping: [],
  },
  memberSync: { autoProvision: true },
};

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Each object sent is merged into the stored one; arrays and scalars replace. */
function merge(base: Plain, patch: Plain): Plain {
  const out: Plain = { ...base };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) out[k] = isPlain(v) && isPlain(out[k]) ? merge(out[k] as Plain, v) : v;
  return out;
}

/** The sso object a caller may see: admins all of it but the certificate; other members enabled, enforced and provider. */
export function ssoView(org: OrganizationRow, actor: Actor) {
  if (!org.sso) return undefined;
  const { enabled, enforced, provider } = org.sso as { enabled: boolean; enforced: boolean; provider: string };
  const admin = administersOrganization(actor, org.id);
  if (!admin) return { enabled, enforced, provider };
  const saml = { ...((org.sso.saml as Plain) ?? {}) };
  const hasCertificate = typeof saml.certificate === 'string';
  delete saml.certificate;
  return { ...org.sso, saml: { ...saml, hasCertificate } };
}

export function scimView(org: OrganizationRow) {
  if (!org.scim || org.scim.enabled !== true) return undefined;
  return { enabled: true, endpoint: (org.scim.endpoint as string) ?? null, hasToken: Boolean(org.scim.tokenHash), tokenCreatedAt: (org.scim.tokenCreatedAt as string) ?? null, version: '2.0' };
}

export async function putSso(db: Db, actor: Actor, orgId: string, input: z.infer<typeof SsoBody>) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  const current = (org.sso as Plain | null) ?? { ...DEFAULTS, configuredAt: new Date().toISOString() };
  const { metadataXml, ...saml0 } = input.saml ?? {};
  const fromMetadata = metadataXml ? parseIdpMetadata(metadataXml) : {};
  const patch = input.saml ? { ...input, saml: { ...fromMetadata, ...saml0 } } : input;
  if ('certificate' in fromMetadata && !Certificate.safeParse(fromMetadata.certificate).success) throw badRequest('saml.metadataXml: the signing certificate is not a valid X.509 certificate');
  // URLs read from metadata reach the browser exactly like typed ones: same rule.
  const metadataUrlProblems = (['entryPoint', 'logoutUrl'] as const).flatMap((k) => {
    const url = (fromMetadata as { entryPoint?: string; logoutUrl?: string })[k];
    const problem = url === undefined || saml0[k] !== undefined ? null : browserUrlProblem(url);
    return problem ? [{ field: 'saml.metadataXml', problem: `its ${k === 'entryPoint' ? 'SingleSignOnService' : 'SingleLogoutService'} Location ${problem}` }] : [];
  });
  if (metadataUrlProblems.length) throw invalidFields(metadataUrlProblems);
  const next = merge(current, patch as Plain);
  const saml = next.saml as Plain;
  // A value stored before URLs were checked is not carried forward either.
  const storedProblems = (['entryPoint', 'logoutUrl'] as const).flatMap((k) => {
    const problem = typeof saml[k] === 'string' ? browserUrlProblem(saml[k]) : null;
    return problem ? [{ field: `saml.${k}`, problem: `the stored value ${problem}; send a new one` }] : [];
  });
  if (storedProblems.length) throw invalidFields(storedProblems);
  if (next.enabled && (!saml.entryPoint || !saml.certificate)) throw badRequest('saml: entryPoint and certificate are required before SSO can be enabled');
  if (next.enforced && !next.enabled) throw badRequest('enforced: SSO must be enabled to be enforced');
  const u = await db.transaction(async (tx) => {
    const [changed] = await tx.update(organizations).set({ sso: next }).where(eq(organizations.id, org.id)).returning();
    await recordAudit(tx, actor, 'sso.updated', { type: 'organization', id: org.id }, { organizationId: org.id, before: ssoView(org, actor) ?? null, after: ssoView(changed, actor) ?? null });
    return changed;
  });
  return { ok: true as const, sso: ssoView(u, actor)! };
}

/** Clears the SSO configuration and the SCIM token with it. */
export async function deleteSso(db: Db, actor: Actor, orgId: string) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  await db.transaction(async (tx) => {
    await tx.update(organizations).set({ sso: null, scim: null }).where(eq(organizations.id, org.id));
    await recordAudit(tx, actor, 'sso.deleted', { type: 'organization', id: org.id }, { organizationId: org.id, before: ssoView(org, actor) ?? null, after: null });
  });
  return { ok: true as const, sso: null };
}
