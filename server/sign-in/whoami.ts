import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { organizations, teamMemberships, teams } from '@/db/schema';
import type { Actor } from '@/server/access/actor';

/** The hosted app's header and home page: the person, their organization and role, and the teams they belong to with their role. */
export async function portalSummary(db: Db, actor: Actor) {
  const user = actor.user!;
  const [org] = user.organizationId ? await db.select().from(organizations).where(eq(organizations.id, user.organizationId)) : [];
  const memberships = await db
    .select({ id: teams.id, name: teams.name, role: teamMemberships.role, status: teamMemberships.status })
    .from(teamMemberships)
    .innerJoin(teams, eq(teams.id, teamMemberships.teamId))
    .where(and(eq(teamMemberships.userId, user.id), inArray(teamMemberships.status, ['active', 'invited'])));
  return {
    user: { id: user.id, email: user.email, name: user.name },
    organization: org ? { id: org.id, name: org.name, role: user.organizationRole } : null,
    teams: memberships,
  };
}
