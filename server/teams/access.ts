import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { teamMemberships, teams, type TeamRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';

export type TeamAccess = { team: TeamRow; canAdmin: boolean; callerRole: 'member' | 'admin' | 'owner' | null; elevated: boolean };

/**
 * A team and what the caller may do with it. Account-wide credentials, and organization
 * admins or keys of the team's organization, administer it (`elevated`); a member with
 * role owner or admin administers it; other members may read; anyone else gets 404.
 */
export async function teamFor(tx: Tx, actor: Actor, teamId: string, need: 'read' | 'admin'): Promise<TeamAccess> {
  const [team] = await tx
    .select()
    .from(teams)
    .where(and(eq(teams.id, teamId), eq(teams.accountId, actor.accountId)))
    .limit(1);
  if (!team) throw notFound('Team');
  const org = administeredOrganization(actor);
  const elevated = isAccountWide(actor) || (org !== null && team.organizationId === org);
  let callerRole: TeamAccess['callerRole'] = null;
  if (actor.user) {
    const [m] = await tx
      .select()
      .from(teamMemberships)
      .where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.userId, actor.user.id), eq(teamMemberships.status, 'active')))
      .limit(1);
    callerRole = m?.role ?? null;
  }
  if (!elevated && callerRole === null) throw notFound('Team');
  const canAdmin = elevated || callerRole === 'owner' || callerRole === 'admin';
  if (need === 'admin' && !canAdmin) throw forbidden('This needs the team admin role');
  return { team, canAdmin, callerRole, elevated };
}

/**
 * What the caller may do on a team's settings page, by the rule every team service enforces
 * (teamFor): pages ask this instead of re-deriving it from the session's roles.
 */
export async function teamPermissions(tx: Tx, actor: Actor, teamId: string) {
  const { canAdmin, callerRole } = await teamFor(tx, actor, teamId, 'read');
  return { canAdmin, isOwner: callerRole === 'owner' };
}
