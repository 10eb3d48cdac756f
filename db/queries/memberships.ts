import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { teamMemberships, teams } from '@/db/schema';

/*
 * Which teams a user is an active member of. It lives under db/ because both the teams
 * area and the areas teams builds on (users, scim, memories) ask it, and none of those may
 * import the other both ways.
 */

/** Every active membership of the user, with its team (joining a team archives the others, so at most one today). */
export function activeMemberships(tx: Tx, userId: string) {
  return tx
    .select({ m: teamMemberships, t: teams })
    .from(teamMemberships)
    .innerJoin(teams, eq(teams.id, teamMemberships.teamId))
    .where(and(eq(teamMemberships.userId, userId), eq(teamMemberships.status, 'active')));
}

/** The user's active membership with its team, or null. */
export async function activeMembership(tx: Tx, userId: string) {
  const [row] = await activeMemberships(tx, userId).limit(1);
  return row ?? null;
}
