import type { Tx } from '@/db/client';
import type { UserRow } from '@/db/schema';
import { badRequest } from '@/server/http/errors';
import { ownedTeamWithOthers } from './membership';

/**
 * 400 requiresOwnershipTransfer when the user owns a team that still has other active members:
 * asked before a user is deleted or deprovisioned (users, SCIM).
 */
export async function assertOwnsNoSharedTeam(tx: Tx, user: UserRow) {
  const teamId = await ownedTeamWithOthers(tx, user.id);
  if (teamId) {
    throw badRequest('The user owns a team with other active members: transfer its ownership first (POST /teams/{teamId}/transfer-ownership)', {
      requiresOwnershipTransfer: true,
      teamId,
    });
  }
}
