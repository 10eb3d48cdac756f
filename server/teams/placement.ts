import { and, desc, eq, ne } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { teamMemberships, teams, users } from '@/db/schema';
import { activeMembership, createOwnTeam, joinTeam } from './membership';

/**
 * Where a user goes when they lose their team: another active team if they have one, else
 * a team they previously owned (reactivated), else a new team of their own.
 */
export async function placeElsewhere(tx: Tx, userId: string, leavingTeamId: string) {
  const current = await activeMembership(tx, userId);
  if (current && current.t.id !== leavingTeamId) return;
  const [user] = await tx.select().from(users).where(eq(users.id, userId));
  if (!user) return;
  const [owned] = await tx
    .select({ t: teams })
    .from(teamMemberships)
    .innerJoin(teams, eq(teams.id, teamMemberships.teamId))
    .where(and(eq(teamMemberships.userId, userId), eq(teamMemberships.role, 'owner'), ne(teams.id, leavingTeamId)))
    .orderBy(desc(teamMemberships.updatedAt))
    .limit(1);
  if (owned) await joinTeam(tx, user, owned.t, 'owner');
  else await createOwnTeam(tx, user, user.organizationId);
}
