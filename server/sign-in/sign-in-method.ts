import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { identifiers, organizationDomains, organizations, users, type OrganizationRow } from '@/db/schema';
import { verifiedEmailIs } from '@/server/access/verified-email';
import { normalizeEmail } from '@/server/identifiers/verified-email';
import { forbidden } from '@/server/http/errors';
import { ssoConfigOf, ssoUsable } from './sso-config';

export type SignInRoute = { method: 'saml'; organization: OrganizationRow } | { method: 'email' };

export const ssoRequired = () =>
  forbidden('Your organization requires single sign-on: sign in with your organization account', 'sso_required');

async function orgById(db: Db, id: string | null) {
  if (!id) return null;
  const [o] = await db.select().from(organizations).where(eq(organizations.id, id));
  return o ?? null;
}

/**
 * What decides how an address signs in, read in one statement (every hosted-app request of an
 * email session asks it): the organization that verified the address's domain and its SSO
 * settings, and the SSO settings of the organization of the user who holds the address verified.
 */
async function ssoSettings(db: Db, accountId: string, email: string) {
  const address = normalizeEmail(email);
  const { rows } = await db.execute<{ domain_org: string | null; domain_sso: unknown; member_sso: unknown }>(sql`SELECT
      d.organization_id AS domain_org, od.sso AS domain_sso,
      (SELECT mo.sso FROM ${identifiers} JOIN ${users} ON ${users.id} = ${identifiers.userId} JOIN ${organizations} mo ON mo.id = ${users.organizationId}
        WHERE ${verifiedEmailIs(accountId, address)} LIMIT 1) AS member_sso
    FROM (SELECT 1) one
    LEFT JOIN ${organizationDomains} d ON d.account_id = ${accountId} AND d.domain = ${address.split('@')[1] ?? ''} AND d.verified
    LEFT JOIN ${organizations} od ON od.id = d.organization_id
    LIMIT 1`);
  const r = rows[0];
  return {
    domainOrganizationId: r?.domain_org ?? null,
    domainSso: r?.domain_sso ? ssoConfigOf({ sso: r.domain_sso as OrganizationRow['sso'] }) : null,
    memberSso: r?.member_sso ? ssoConfigOf({ sso: r.member_sso as OrganizationRow['sso'] }) : null,
  };
}

/**
 * The rule itself: through the IdP of the organization that verified the domain when its SSO is
 * usable (refused when that SSO is enforced and this is not it), else refused when the domain's or
 * the person's organization enforces SSO, else by email link.
 */
function routeOf(s: Awaited<ReturnType<typeof ssoSettings>>): { method: 'saml'; organizationId: string; enforced: boolean } | { method: 'email' } {
  if (s.domainOrganizationId && ssoUsable(s.domainSso)) return { method: 'saml', organizationId: s.domainOrganizationId, enforced: s.domainSso.enforced };
  if (s.domainSso?.enforced) throw ssoRequired();
  if (s.memberSso?.enforced) throw ssoRequired();
  return { method: 'email' };
}

/**
 * How a person with this email signs in to the hosted app: through the IdP of the organization
 * that verified the email's domain when it has SSO enabled, else by email link, unless SSO is
 * enforced for them (their domain's or their organization's), which refuses the link with 403 sso_required.
 */
export async function signInRoute(db: Db, accountId: string, email: string): Promise<SignInRoute> {
  const route = routeOf(await ssoSettings(db, accountId, email));
  if (route.method === 'email') return route;
  const organization = await orgById(db, route.organizationId);
  // Deleted since the statement read it: no organization verifies the domain any more.
  return organization ? { method: 'saml', organization } : { method: 'email' };
}

/** The check every non-SSO sign-in passes (the email link when requested and when used). */
export async function assertEmailSignInAllowed(db: Db, accountId: string, email: string) {
  const route = routeOf(await ssoSettings(db, accountId, email));
  if (route.method === 'saml' && route.enforced) throw ssoRequired();
}
