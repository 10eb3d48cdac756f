import { and, count, eq, ne } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { users, type UserRow } from '@/db/schema';
import { badRequest, conflict } from '@/server/http/errors';
import { ownedTeamWithOthers } from '@/server/teams/membership';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

/** 409 requiresOrgAdminTransfer when the user is their organization's only admin. */
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

/** 400 requiresOwnershipTransfer when the user owns a team that still has other active members. */
export async function assertOwnsNoSharedTeam(tx: Tx, user: UserRow) {
  const teamId = await ownedTeamWithOthers(tx, user.id);
  if (teamId) {
    throw badRequest('The user owns a team with other active members: transfer its ownership first (POST /teams/{teamId}/transfer-ownership)', {
      requiresOwnershipTransfer: true,
      teamId,
    });
  }
}
