import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { organizations, type OrganizationRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';

/**
 * Whether a caller already let in by organizationFor administers the organization: account-wide
 * credentials, the organization's key, or its admins. This is the test organizationFor(…, 'admin') makes.
 */
export const administersOrganization = (actor: Actor, orgId: string) => isAccountWide(actor) || administeredOrganization(actor) === orgId;

/**
 * The organization for a caller. Account-wide credentials reach every organization of the
 * account; an organization key only its own (others 404); a user their own organization
 * (another organization of the account is 403, as the spec states). `admin` requires the
 * organization admin role, an organization key or an account-wide credential.
 */
export async function organizationFor(db: Db, actor: Actor, orgId: string, need: 'member' | 'admin'): Promise<OrganizationRow> {
  const [org] = await db
    .select()
    .from(organizations)
    .where(and(eq(organizations.id, orgId), eq(organizations.accountId, actor.accountId)))
    .limit(1);
  if (!org) throw notFound('Organization');
  if (isAccountWide(actor)) return org;
  if (actor.level === 'organization' && !actor.user) {
    if (actor.organizationId !== org.id) throw notFound('Organization');
    return org;
  }
  if (actor.user?.organizationId !== org.id) throw forbidden('Not a member of this organization');
  if (need === 'admin' && !administersOrganization(actor, org.id)) throw forbidden('This needs the organization admin role');
  return org;
}

/**
 * What the caller may do on an organization's settings page, by the rule the organization
 * services enforce: pages ask this instead of re-deriving it from the session's roles.
 * Refused like reading the organization (404, or 403 for another organization of the account).
 */
export async function organizationPermissions(db: Db, actor: Actor, orgId: string) {
  const org = await organizationFor(db, actor, orgId, 'member');
  return { canAdmin: administersOrganization(actor, org.id) };
}
