import { and, eq, ne, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { teamMemberships, teams, users, type TeamRow, type UserRow } from '@/db/schema';

// The query itself is in db/queries so that areas below teams ask the same one.
export { activeMembership } from '@/db/queries/memberships';

export async function activeMemberCount(tx: Tx, teamId: string, exceptUserId?: string) {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(teamMemberships)
    .where(
      and(
        eq(teamMemberships.teamId, teamId),
        eq(teamMemberships.status, 'active'),
        exceptUserId ? ne(teamMemberships.userId, exceptUserId) : undefined,
      ),
    );
  return row.n;
}

/**
 * The team a user owns that still has other active members, if any: such a user
 * cannot move until that team's ownership is transferred.
 */
export async function ownedTeamWithOthers(tx: Tx, userId: string): Promise<string | null> {
  const owned = await tx
    .select({ teamId: teamMemberships.teamId })
    .from(teamMemberships)
    .where(and(eq(teamMemberships.userId, userId), eq(teamMemberships.role, 'owner'), eq(teamMemberships.status, 'active')));
  for (const { teamId } of owned) {
    if ((await activeMemberCount(tx, teamId, userId)) > 0) return teamId;
  }
  return null;
}

/**
 * Makes `team` the user's one active team: other memberships are archived, and a
 * team left with no active member is archived too.
 */
export async function joinTeam(tx: Tx, user: UserRow, team: TeamRow, role: 'member' | 'admin' | 'owner') {
  const others = await tx
    .select()
    .from(teamMemberships)
    .where(and(eq(teamMemberships.userId, user.id), eq(teamMemberships.status, 'active'), ne(teamMemberships.teamId, team.id)));
  for (const m of others) {
    await tx.update(teamMemberships).set({ status: 'archived' }).where(eq(teamMemberships.id, m.id));
    if ((await activeMemberCount(tx, m.teamId)) === 0) {
      await tx.update(teams).set({ status: 'archived' }).where(eq(teams.id, m.teamId));
    }
  }
  const [existing] = await tx
    .select()
    .from(teamMemberships)
    .where(and(eq(teamMemberships.userId, user.id), eq(teamMemberships.teamId, team.id)))
    .limit(1);
  let membership;
  if (existing) {
    [membership] = await tx
      .update(teamMemberships)
      .set({ status: 'active', role })
      .where(eq(teamMemberships.id, existing.id))
      .returning();
  } else {
    [membership] = await tx
      .insert(teamMemberships)
      .values({ accountId: user.accountId, teamId: team.id, userId: user.id, role })
      .returning();
  }
  if (team.status === 'archived') await tx.update(teams).set({ status: 'active' }).where(eq(teams.id, team.id));
  // Joining an organization's team makes a user without an organization its member.
  if (team.organizationId && !user.organizationId) {
    await tx.update(users).set({ organizationId: team.organizationId, organizationRole: 'member' }).where(eq(users.id, user.id));
  }
  return membership;
}

/** A new team owned by the user, named after them. */
export async function createOwnTeam(tx: Tx, user: UserRow, organizationId: string | null) {
  const label = [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email;
  const [team] = await tx
    .insert(teams)
    .values({ accountId: user.accountId, organizationId, name: `${label}'s team` })
    .returning();
  await joinTeam(tx, user, team, 'owner');
  return team;
}
