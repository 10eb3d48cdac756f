import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { teams, users, type OrganizationRow, type UserRow } from '@/db/schema';
import { activeMembership, createOwnTeam, joinTeam, ownedTeamWithOthers } from '@/server/teams/membership';
import { hireDefaultAssistant } from './default-assistant';

/**
 * Makes the user a member of the organization (when they have none) and places them on its default
 * team, or a team of their own; its default assistant joins their roster.
 */
export async function placeInOrganization(tx: Tx, org: OrganizationRow, user: UserRow): Promise<UserRow> {
  let u = user;
  if (!u.organizationId) [u] = await tx.update(users).set({ organizationId: org.id, organizationRole: 'member' }).where(eq(users.id, u.id)).returning();
  const [defaultTeam] = org.defaultTeamId ? await tx.select().from(teams).where(eq(teams.id, org.defaultTeamId)) : [];
  const current = await activeMembership(tx, u.id);
  if (defaultTeam && current?.t.id !== defaultTeam.id && !(await ownedTeamWithOthers(tx, u.id))) await joinTeam(tx, u, defaultTeam, 'member');
  else if (!current) await createOwnTeam(tx, u, org.id);
  if (u.organizationId === org.id) {
    await hireDefaultAssistant(tx, org, u);
    [u] = await tx.select().from(users).where(eq(users.id, u.id));
  }
  return u;
}
