import { and, count, desc, eq, inArray, notInArray, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { assistants, teamMemberships, teams, users, type TeamRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { badRequest, forbidden, notFound } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { teamFor } from './access';
import type { CreateTeamBody, ListTeamsQuery, UpdateTeamBody } from './contracts';
import { joinTeam } from './membership';
import { placeElsewhere } from './placement';
import { assertMayJoin, handOverIfNeeded } from './join-rules';
import { recordAudit } from '@/server/audit/record';

export const toPublicTeam = (t: TeamRow) => ({
  id: t.id,
  account: t.accountId,
  organization: t.organizationId,
  name: t.name,
  generalInfo: t.generalInfo,
  adminApprovalRequired: t.adminApprovalRequired,
  brandingOnEvents: t.brandingOnEvents,
  brandingOnMessages: t.brandingOnMessages,
  status: t.status,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

/** Account-wide: every team; organization keys and admins: the organization's; a user: teams they belong to; `joinable`: teams the user may ask to join. */
export async function listTeams(db: Db, actor: Actor, q: z.infer<typeof ListTeamsQuery>) {
  const filters: SQL[] = [eq(teams.accountId, actor.accountId)];
  if (q.joinable) {
    // What a person may ask to join (team-joins): their organization's active teams but their own.
    if (!actor.user) throw badRequest('joinable: names the teams a user may ask to join; call as a user (X-User-Email with an account key)');
    const mine = db.select({ id: teamMemberships.teamId }).from(teamMemberships).where(and(eq(teamMemberships.userId, actor.user.id), eq(teamMemberships.status, 'active')));
    // Guests are brought onto teams by admins, never by asking (team-joins/service.ts mayAskToJoin).
    const org = actor.user.organizationRole === 'guest' ? null : actor.user.organizationId;
    filters.push(eq(teams.organizationId, org ?? ''), eq(teams.status, 'active'), notInArray(teams.id, mine));
  } else if (!isAccountWide(actor)) {
    const org = administeredOrganization(actor);
    if (org) filters.push(eq(teams.organizationId, org));
    else {
      const mine = db.select({ id: teamMemberships.teamId }).from(teamMemberships).where(eq(teamMemberships.userId, actor.user?.id ?? ''));
      filters.push(inArray(teams.id, mine));
    }
  }
  if (q.status) filters.push(eq(teams.status, q.status));
  const where = and(...filters);
  const { limit, offset } = pageWindow(q);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(teams).where(where).orderBy(desc(teams.createdAt), desc(teams.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(teams).where(where),
  ]);
  return { ok: true as const, teams: rows.map(toPublicTeam), ...pageInfo(q, total) };
}

/**
 * A user creates a team in their organization and becomes its owner (moving from their
 * current team); an account key names the owner and the team belongs to no organization.
 */
export async function createTeam(db: Db, actor: Actor, input: z.infer<typeof CreateTeamBody>) {
  const team = await db.transaction(async (tx) => {
    let ownerId: string;
    let organizationId: string | null;
    if (actor.user) {
      if (actor.user.organizationId && administeredOrganization(actor) !== actor.user.organizationId) {
        throw forbidden('Creating a team in an organization needs the organization admin role');
      }
      ownerId = actor.user.id;
      organizationId = actor.user.organizationId;
    } else {
      if (!input.ownerId) throw badRequest('ownerId: required with an account key and no X-User-Email');
      ownerId = input.ownerId;
      organizationId = actor.level === 'organization' ? actor.organizationId : null;
    }
    const [owner] = await tx.select().from(users).where(and(eq(users.id, ownerId), eq(users.accountId, actor.accountId)));
    if (!owner) throw notFound('User');
    // The same rules as adding a member: who may be placed on this team, and who may hand over the owner's current team.
    assertMayJoin(actor, owner, { organizationId });
    await handOverIfNeeded(tx, actor, owner, input.newOwnerId);
    const [t] = await tx
      .insert(teams)
      .values({ accountId: actor.accountId, organizationId, name: input.name, adminApprovalRequired: input.adminApprovalRequired ?? false })
      .returning();
    await joinTeam(tx, owner, t, 'owner');
    await recordAudit(tx, actor, 'team.created', { type: 'team', id: t.id }, { organizationId, after: { name: t.name, organizationId, ownerId: owner.id, adminApprovalRequired: t.adminApprovalRequired } });
    return t;
  });
  return { ok: true as const, team: toPublicTeam(team) };
}

export async function getTeam(db: Db, actor: Actor, teamId: string) {
  return { ok: true as const, team: toPublicTeam((await teamFor(db, actor, teamId, 'read')).team) };
}

export async function updateTeam(db: Db, actor: Actor, teamId: string, input: z.infer<typeof UpdateTeamBody>) {
  const { team } = await teamFor(db, actor, teamId, 'admin');
  const set = changedFields(input);
  if (!set) return { ok: true as const, team: toPublicTeam(team) };
  const t = await db.transaction(async (tx) => {
    const [t] = await tx.update(teams).set(set).where(eq(teams.id, team.id)).returning();
    const keys = Object.keys(set) as Array<keyof typeof set & keyof TeamRow>;
    await recordAudit(tx, actor, 'team.updated', { type: 'team', id: team.id }, { organizationId: team.organizationId, before: Object.fromEntries(keys.map((k) => [k, team[k]])), after: Object.fromEntries(keys.map((k) => [k, t[k]])) });
    return t;
  });
  return { ok: true as const, team: toPublicTeam(t) };
}

/** Deleting a team archives its memberships (the rows go with it) and moves its members elsewhere. */
export async function deleteTeam(db: Db, actor: Actor, teamId: string) {
  await db.transaction(async (tx) => {
    const { team } = await teamFor(tx, actor, teamId, 'admin');
    const members = await tx
      .select({ userId: teamMemberships.userId })
      .from(teamMemberships)
      .where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.status, 'active')));
    await tx.update(teamMemberships).set({ status: 'archived' }).where(eq(teamMemberships.teamId, team.id));
    for (const m of members) await placeElsewhere(tx, m.userId, team.id);
    // Team assistants are detached: no team, inactive, kept for the account to reassign.
    await tx.update(assistants).set({ teamId: null, status: 'inactive' }).where(eq(assistants.teamId, team.id));
    await tx.delete(teams).where(eq(teams.id, team.id));
    await recordAudit(tx, actor, 'team.deleted', { type: 'team', id: team.id }, { organizationId: team.organizationId, before: { name: team.name, members: members.map((m) => m.userId) }, after: null });
  });
  return { ok: true as const, team: { id: teamId, deleted: true as const, message: 'Team deleted; its members were placed on other teams' } };
}

