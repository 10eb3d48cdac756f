import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { teamMemberships, type UserRow } from '@/db/schema';
import { badRequest } from '@/server/http/errors';
import { ownedTeamWithOthers } from './membership';

/**
 * Before a user who owns a team with other active members moves: `newOwnerId` (an active
 * member of that team) takes ownership, else 400 requiresOwnershipTransfer with the teamId.
 */
export async function transferIfNeeded(tx: Tx, user: UserRow, newOwnerId: string | undefined) {
  const teamId = await ownedTeamWithOthers(tx, user.id);
  if (!teamId) return;
  if (!newOwnerId) {
    throw badRequest('The user owns a team with other active members: send newOwnerId (an active member of that team)', {
      requiresOwnershipTransfer: true,
      teamId,
    });
  }
  await makeOwner(tx, teamId, user.id, newOwnerId, 'member');
}

/** Hands ownership of the team to an active member; the previous owner keeps `formerRole`. */
export async function makeOwner(tx: Tx, teamId: string, currentOwnerId: string, newOwnerId: string, formerRole: 'member' | 'admin') {
  const [next] = await tx
    .select()
    .from(teamMemberships)
    .where(and(eq(teamMemberships.teamId, teamId), eq(teamMemberships.userId, newOwnerId), eq(teamMemberships.status, 'active')));
  if (!next || newOwnerId === currentOwnerId) throw badRequest('newOwnerId: must be another active member of the team', { teamId });
  await tx.update(teamMemberships).set({ role: formerRole }).where(and(eq(teamMemberships.teamId, teamId), eq(teamMemberships.userId, currentOwnerId)));
  await tx.update(teamMemberships).set({ role: 'owner' }).where(eq(teamMemberships.id, next.id));
}
