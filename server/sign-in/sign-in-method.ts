import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { organizations, type OrganizationRow } from '@/db/schema';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { forbidden } from '@/server/http/errors';
import { verifyingOrganization } from '@/server/organizations/domains';
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
 * How a person with this email signs in to the hosted app: through the IdP of the organization
 * that verified the email's domain when it has SSO enabled, else by email link, unless SSO is
 * enforced for them (their domain's or their organization's), which refuses the link with 403 sso_required.
 */
export async function signInRoute(db: Db, accountId: string, email: string): Promise<SignInRoute> {
  const address = email.trim().toLowerCase();
  const byDomain = await orgById(db, await verifyingOrganization(db, accountId, address));
  const domainSso = byDomain ? ssoConfigOf(byDomain) : null;
  if (byDomain && ssoUsable(domainSso)) return { method: 'saml', organization: byDomain };
  if (domainSso?.enforced) throw ssoRequired();
  const user = await findUserByVerifiedEmail(db, accountId, address);
  const member = user ? await orgById(db, user.organizationId) : null;
  if (member && ssoConfigOf(member)?.enforced) throw ssoRequired();
  return { method: 'email' };
}

/** The check every non-SSO sign-in passes (the email link when requested and when used). */
export async function assertEmailSignInAllowed(db: Db, accountId: string, email: string) {
  const route = await signInRoute(db, accountId, email);
  if (route.method === 'saml' && ssoConfigOf(route.organization)?.enforced) throw ssoRequired();
}
