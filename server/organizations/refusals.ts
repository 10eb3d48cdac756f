import { and, count, eq, ne } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { users, type UserRow } from '@/db/schema';
import { conflict } from '@/server/http/errors';

/**
 * 409 requiresOrgAdminTransfer when the user is their organization's only admin: asked before a
 * user leaves the organization or loses the role (users, organization members, SCIM). The team
 * owner's refusal is its twin in server/teams/refusals.ts.
 */
export async function assertNotOnlyOrgAdmin(tx: Tx, user: UserRow) {
  if (!user.organizationId || user.organizationRole !== 'admin') return;
  const [{ n }] = await tx
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.organizationId, user.organizationId), eq(users.organizationRole, 'admin'), ne(users.id, user.id)));
  if (n === 0) {
    throw conflict('The user is the organization’s only admin: make someone else admin first (PUT /users/{userId})', {
      requiresOrgAdminTransfer: true,
      organizationId: user.organizationId,
    });
  }
}
