import { and, eq, sql } from 'drizzle-orm';
import type { Profile } from '@node-saml/node-saml';
import type { Db } from '@/db/client';
import { organizationDomains, organizations, users, type AccountRow, type OrganizationRow, type UserRow } from '@/db/schema';
import { spValues } from '@/server/hosted/saml-metadata';
import { AppError, badRequest } from '@/server/http/errors';
import { placeInOrganization } from '@/server/organizations/members';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { createUserWithEmail } from '@/server/user-record/create';
import { samlFor } from './saml-client';
import { spCredentials } from '@/server/hosted/sp-credentials';
import { acceptOnce, pendingRequest } from './saml-store';
import { assertionFacts, hasCommentInIdentity, peekResponse } from '@/server/hosted/saml-xml';
import { ssoConfigOf, ssoUsable, type SsoConfig } from './sso-config';
import { safeReturnTo } from './saml-start';
import type { SamlSession } from './session';

export const rejected = (why: string) => new AppError(403, 'sso_rejected', `SAML sign-in refused: ${why}`);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Real responses are a few kilobytes; anything near this is not one. */
const MAX_RESPONSE_CHARS = 512 * 1024;
const first = (v: unknown): string | null => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v.trim() : null);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.flatMap(list) : typeof v === 'string' && v.trim() ? [v.trim()] : []);

/** Which organization a response is for: the one whose request it answers, else (IdP-initiated) the one whose IdP issued it. */
async function responseOrganization(db: Db, account: AccountRow, peek: NonNullable<ReturnType<typeof peekResponse>>) {
  if (peek.inResponseTo) {
    const pending = await pendingRequest(db, account.id, peek.inResponseTo);
    if (!pending) throw rejected('it answers no sign-in request started here in the last 10 minutes');
    const [org] = await db.select().from(organizations).where(eq(organizations.id, pending.organizationId));
    if (!org) throw rejected('the organization no longer exists');
    return { org, returnTo: pending.returnTo };
  }
  // Nothing but the configured issuer names the organization here, so a response without one has none.
  if (!peek.issuer) throw rejected('a sign-in started at the IdP must name its issuer');
  const candidates = await db
    .select()
    .from(organizations)
    .where(and(eq(organizations.accountId, account.id), sql`${organizations.sso}->'saml'->>'issuer' = ${peek.issuer}`));
  const org = candidates.find((o) => ssoUsable(ssoConfigOf(o)));
  if (!org) throw rejected('no organization with SSO enabled has this IdP as issuer');
  if (!ssoConfigOf(org)!.saml.allowIdpInitiated) throw rejected('sign-in started at the IdP is not allowed for this organization');
  return { org, returnTo: null };
}

function groupsAllowed(config: SsoConfig, groups: string[]) {
  const f = config.saml.groupFilter;
  if (!f.enabled) return true;
  const have = new Set(groups.map((g) => g.toLowerCase()));
  const wanted = f.allowedGroups.map((g) => g.toLowerCase());
  return f.requireAll ? wanted.every((g) => have.has(g)) : wanted.some((g) => have.has(g));
}

function mappedRole(config: SsoConfig, groups: string[]) {
  const have = new Set(groups.map((g) => g.toLowerCase()));
  return config.saml.groupRoleMapping.find((m) => have.has(m.group.toLowerCase()))?.role ?? null;
}

async function isVerifiedDomain(db: Db, org: OrganizationRow, email: string) {
  const [d] = await db
    .select({ id: organizationDomains.id })
    .from(organizationDomains)
    .where(and(eq(organizationDomains.organizationId, org.id), eq(organizationDomains.domain, email.split('@')[1]), eq(organizationDomains.verified, true)));
  return Boolean(d);
}

const isUniqueViolation = (e: unknown) => (e as { code?: string }).code === '23505' || (e as { cause?: { code?: string } }).cause?.code === '23505';

/**
 * The signed-in person: whoever holds the email as a verified identifier (never someone who merely
 * claims it), or a new user when memberSync.autoProvision; their organization role follows
 * groupRoleMapping. Returned as stored afterwards, so a session minted from it carries the
 * session version any change here produced.
 */
async function admit(db: Db, org: OrganizationRow, config: SsoConfig, p: { email: string; firstName: string | null; lastName: string | null; role: 'admin' | 'member' | null }) {
  return db.transaction(async (tx) => {
    let u = await findUserByVerifiedEmail(tx, org.accountId, p.email);
    if (!u) {
      if (!config.memberSync.autoProvision) throw rejected('this person has not been provisioned and automatic provisioning is off');
      try {
        u = await createUserWithEmail(tx, { accountId: org.accountId, email: p.email, firstName: p.firstName ?? undefined, lastName: p.lastName ?? undefined, organizationId: org.id });
      } catch (e) {
        // Someone else claims the address without having verified it: they are not this person,
        // and an administrator has to settle it.
        if (isUniqueViolation(e)) throw rejected(`${p.email} is claimed by another user of the account without verification`);
        throw e;
      }
    }
    if (u.organizationId && u.organizationId !== org.id) throw rejected('this person belongs to another organization');
    if (u.status !== 'active') throw new AppError(403, 'account_blocked', 'This user is inactive or suspended');
    u = await placeInOrganization(tx, org, u);
    const names = { ...(p.firstName ? { firstName: p.firstName } : {}), ...(p.lastName ? { lastName: p.lastName } : {}) };
    if (p.role || Object.keys(names).length) {
      const name = [p.firstName ?? u.firstName, p.lastName ?? u.lastName].filter(Boolean).join(' ') || u.name;
      await tx.update(users).set({ ...names, name, ...(p.role ? { organizationRole: p.role } : {}) }).where(eq(users.id, u.id));
    }
    const [fresh] = await tx.select().from(users).where(eq(users.id, u.id));
    return fresh;
  });
}

/** Records the SP values the IdP was registered with, on the first successful sign-in. */
async function recordSpValues(db: Db, org: OrganizationRow, config: SsoConfig, origin: string) {
  if (config.saml.spEntityId && config.saml.acsUrl && config.saml.sloUrl) return;
  const sp = spValues(origin);
  await db
    .update(organizations)
    .set({ sso: sql`jsonb_set(${organizations.sso}, '{saml}', coalesce(${organizations.sso}->'saml', '{}'::jsonb) || ${JSON.stringify({ spEntityId: sp.entityId, acsUrl: sp.acsUrl, sloUrl: sp.sloUrl })}::jsonb)` })
    .where(eq(organizations.id, org.id));
}

/**
 * POST /sso/saml/acs: verifies the IdP's response (signed Assertion, issuer, audience, recipient,
 * validity, InResponseTo or allowed IdP-initiated, at most once, verified email domain, group
 * filter) and admits the person. Every refusal is a 403 sso_rejected naming the reason.
 */
export async function consumeSamlResponse(db: Db, account: AccountRow, origin: string, form: URLSearchParams, now = new Date()): Promise<{ user: UserRow; returnTo: string; saml: SamlSession }> {
  const encoded = form.get('SAMLResponse');
  if (!encoded) throw badRequest('SAMLResponse: is required');
  if (encoded.length > MAX_RESPONSE_CHARS) throw badRequest('SAMLResponse: is too large');
  const xml = Buffer.from(encoded, 'base64').toString('utf8');
  // SAML never needs a DTD; refusing them rules out entity-expansion tricks before any parsing.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw rejected('the response contains a DTD');
  const peek = peekResponse(xml);
  if (!peek) throw badRequest('SAMLResponse: is not a SAML response');
  if (hasCommentInIdentity(xml)) throw rejected('the NameID or an attribute value contains an XML comment');
  const { org, returnTo } = await responseOrganization(db, account, peek);
  const config = ssoConfigOf(org)!;
  if (!ssoUsable(config)) throw rejected('SSO is not enabled for this organization');
  const sp = spValues(origin);
  let profile: Profile | null;
  try {
    ({ profile } = await samlFor(db, { accountId: account.id, organizationId: org.id, origin, config, sp: await spCredentials(db) }).validatePostResponseAsync({ SAMLResponse: encoded }));
  } catch (e) {
    throw rejected((e as Error).message);
  }
  if (!profile) throw rejected('the response carries no assertion');
  // Unsolicited, only the configured issuer ties the response to this organization, and it must be
  // the signed assertion's: the Response around it may be unsigned (node-saml checks idpIssuer on logout messages only).
  if (returnTo === null && profile.issuer !== config.saml.issuer) throw rejected('the assertion was issued by another IdP than the configured issuer');
  if (peek.destination && peek.destination !== sp.acsUrl) throw rejected('the response is addressed to another ACS URL');
  const facts = assertionFacts(profile.getAssertionXml?.() ?? '');
  if (facts.recipients.length === 0 || facts.recipients.some((r) => r !== sp.acsUrl)) throw rejected('the assertion is addressed to another ACS URL');
  if (!facts.id) throw rejected('the assertion has no ID');
  const expires = facts.notOnOrAfter && facts.notOnOrAfter > now ? facts.notOnOrAfter : new Date(now.getTime() + 3600_000);
  if (!(await acceptOnce(db, org.id, facts.id, expires))) throw rejected('this assertion was already used');

  const attrs = (profile.attributes ?? {}) as Record<string, unknown>;
  const map = config.saml.attributeMapping;
  const email = (first(attrs[map.email]) ?? first(profile.email) ?? profile.nameID ?? '').toLowerCase();
  if (!EMAIL.test(email)) throw rejected('the assertion carries no email address');
  if (!(await isVerifiedDomain(db, org, email))) throw rejected(`${email} is not at one of the organization's verified domains`);
  const groups = list(attrs[map.groups]);
  if (!groupsAllowed(config, groups)) throw rejected('this person is not in a group allowed to sign in');
  const user = await admit(db, org, config, { email, firstName: first(attrs[map.firstName]), lastName: first(attrs[map.lastName]), role: mappedRole(config, groups) });
  await recordSpValues(db, org, config, origin);
  const relay = form.get('RelayState');
  const saml: SamlSession = { organizationId: org.id, nameID: profile.nameID, nameIDFormat: profile.nameIDFormat ?? null, sessionIndex: profile.sessionIndex ?? null };
  return { user, returnTo: returnTo ?? safeReturnTo(relay), saml };
}
