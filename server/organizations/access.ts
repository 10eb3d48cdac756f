import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { organizations, type OrganizationRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';

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
  if (need === 'admin' && administeredOrganization(actor) !== org.id) throw forbidden('This needs the organization admin role');
  return org;
}
