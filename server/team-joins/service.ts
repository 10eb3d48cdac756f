import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { teamJoinRequests, teamMemberships, teams, users, type TeamJoinRequestRow, type TeamRow, type UserRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { recordAudit } from '@/server/audit/record';
import { conflict, forbidden, notFound } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { teamFor } from '@/server/teams/access';
import { joinTeam, ownedTeamWithOthers } from '@/server/teams/membership';
import type { CreateJoinRequestBody, ListJoinRequestsQuery } from './contracts';
import { tellAdminsOfRequest, tellRequesterOfDecision } from './notices';

/*
 * Join requests (spec 1, Team `adminApprovalRequired`: "a team admin must approve join requests").
 * A person asks to join a team of their own organization; a team that asks no approval takes them
 * at once, one that does waits for a team admin, who is told by a notice. Approving moves the
 * person exactly as a team admin adding them would (joinTeam: their other memberships archived),
 * so the rules of moving (a team they own with others must be handed over first) hold here too.
 */

async function present(tx: Tx, rows: TeamJoinRequestRow[]) {
  if (rows.length === 0) return [];
  const people = await tx.select().from(users).where(inArray(users.id, [...new Set(rows.map((r) => r.userId))]));
  const named = await tx.select({ id: teams.id, name: teams.name }).from(teams).where(inArray(teams.id, [...new Set(rows.map((r) => r.teamId))]));
  return rows.map((r) => {
    const u = people.find((p) => p.id === r.userId);
    return {
      id: r.id,
      team: named.find((t) => t.id === r.teamId) ?? { id: r.teamId, name: '' },
      user: { id: r.userId, email: u?.email ?? '', name: u?.name ?? null },
      status: r.status,
      message: r.message,
      decidedBy: r.decidedBy,
      decidedAt: r.decidedAt?.toISOString() ?? null,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    };
  });
}
const one = async (tx: Tx, row: TeamJoinRequestRow) => ({ ok: true as const, joinRequest: (await present(tx, [row]))[0]! });

/** Who may ask to join teams: a member or admin of an organization; a guest is brought in by an admin, never by asking. */
export const mayAskToJoin = (user: Pick<UserRow, 'organizationId' | 'organizationRole'>) => Boolean(user.organizationId) && user.organizationRole !== 'guest';

/**
 * The team a person may ask to join: an active team of their own organization. Any other team is
 * 404, as if it did not exist: people outside an organization (and its guests) have no teams to
 * discover, and a team of another organization says nothing about itself.
 */
async function joinableTeam(tx: Tx, accountId: string, user: UserRow, teamId: string): Promise<TeamRow> {
  const [team] = await tx.select().from(teams).where(and(eq(teams.id, teamId), eq(teams.accountId, accountId)));
  if (!team || !mayAskToJoin(user) || team.organizationId !== user.organizationId || team.status !== 'active') throw notFound('Team');
  return team;
}

const asking = (actor: Actor): UserRow => {
  if (!actor.user) throw forbidden('A join request is made by the person who wants to join: a user key, or an account key with X-User-Email');
  return actor.user;
};

const refuseIfOwnsSharedTeam = async (tx: Tx, userId: string, who: string) => {
  const owned = await ownedTeamWithOthers(tx, userId);
  if (owned) {
    throw conflict(`${who} own${who === 'You' ? '' : 's'} a team with other active members: its ownership must be handed over first (POST /teams/{teamId}/transfer-ownership)`, { requiresOwnershipTransfer: true, teamId: owned }, 'requires_ownership_transfer');
  }
};

export async function requestToJoin(db: Db, actor: Actor, teamId: string, input: z.infer<typeof CreateJoinRequestBody>) {
  // Another account's team is 404 before anything is said about who may ask.
  if (!actor.user) {
    const [team] = await db.select({ id: teams.id }).from(teams).where(and(eq(teams.id, teamId), eq(teams.accountId, actor.accountId)));
    if (!team) throw notFound('Team');
  }
  const me = asking(actor);
  return db.transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.id, me.id));
    const team = await joinableTeam(tx, actor.accountId, user!, teamId);
    const [member] = await tx
      .select({ id: teamMemberships.id })
      .from(teamMemberships)
      .where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.userId, user!.id), eq(teamMemberships.status, 'active')));
    if (member) throw conflict('You are already a member of this team', {}, 'already_member');
    const [open] = await tx.select().from(teamJoinRequests).where(and(eq(teamJoinRequests.teamId, team.id), eq(teamJoinRequests.userId, user!.id), eq(teamJoinRequests.status, 'pending')));
    // Asking twice is the same request: admins are not told again.
    if (open) return { status: 200 as const, body: await one(tx, open) };
    // Said now rather than when an admin approves: only the person can resolve it.
    await refuseIfOwnsSharedTeam(tx, user!.id, 'You');
    const auto = !team.adminApprovalRequired;
    const [row] = await tx
      .insert(teamJoinRequests)
      .values({ accountId: actor.accountId, teamId: team.id, userId: user!.id, message: input.message ?? '', status: auto ? 'approved' : 'pending', decidedAt: auto ? new Date() : null })
      .onConflictDoNothing()
      .returning();
    if (!row) throw conflict('A request to join this team is being made at this moment; try again', {}, 'concurrent_update');
    await recordAudit(tx, actor, 'team_join.requested', { type: 'team_join_request', id: row.id }, { organizationId: team.organizationId, after: { teamId: team.id, userId: user!.id, status: row.status } });
    if (auto) {
      const joined = await joinTeam(tx, user!, team, 'member');
      await recordAudit(tx, actor, 'team_member.added', { type: 'team_member', id: joined.id }, { organizationId: team.organizationId, before: { userId: user!.id }, after: { userId: user!.id, teamId: team.id, role: joined.role, via: 'join_request' } });
    } else {
      await tellAdminsOfRequest(tx, team, user!, row);
    }
    return { status: 201 as const, body: await one(tx, row) };
  });
}

/** A team's requests (team admins): pending ones unless asked for another status, newest first. */
export async function listJoinRequests(db: Db, actor: Actor, teamId: string, q: z.infer<typeof ListJoinRequestsQuery>) {
  const { team } = await teamFor(db, actor, teamId, 'admin');
  const where = and(eq(teamJoinRequests.teamId, team.id), eq(teamJoinRequests.status, q.status));
  const { limit, offset } = pageWindow(q);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(teamJoinRequests).where(where).orderBy(desc(teamJoinRequests.createdAt), desc(teamJoinRequests.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(teamJoinRequests).where(where),
  ]);
  return { ok: true as const, joinRequests: await present(db, rows), ...pageInfo(q, total) };
}

async function pendingRequest(tx: Tx, teamId: string, requestId: string, userId?: string) {
  const [row] = await tx
    .select()
    .from(teamJoinRequests)
    .where(and(eq(teamJoinRequests.id, requestId), eq(teamJoinRequests.teamId, teamId), userId ? eq(teamJoinRequests.userId, userId) : undefined))
    .for('update');
  if (!row) throw notFound('Join request');
  if (row.status !== 'pending') throw conflict(`This request is already ${row.status}`, { requestStatus: row.status }, 'not_pending');
  return row;
}

/** A team admin approves (the person joins) or declines; the person is told either way. */
export async function decideJoinRequest(db: Db, actor: Actor, teamId: string, requestId: string, decision: 'approve' | 'decline') {
  return db.transaction(async (tx) => {
    const { team } = await teamFor(tx, actor, teamId, 'admin');
    const req = await pendingRequest(tx, team.id, requestId);
    const [user] = await tx.select().from(users).where(eq(users.id, req.userId));
    if (decision === 'approve') {
      // The person may have left the organization since they asked: joining would move them across its line.
      if (!user || user.organizationId !== team.organizationId) throw conflict('The person is no longer a member of the team’s organization; decline the request', {}, 'not_in_organization');
      await refuseIfOwnsSharedTeam(tx, user.id, 'The person');
      const joined = await joinTeam(tx, user, team, 'member');
      await recordAudit(tx, actor, 'team_member.added', { type: 'team_member', id: joined.id }, { organizationId: team.organizationId, before: { userId: user.id }, after: { userId: user.id, teamId: team.id, role: joined.role, via: 'join_request' } });
    }
    const status = decision === 'approve' ? ('approved' as const) : ('declined' as const);
    const [row] = await tx
      .update(teamJoinRequests)
      .set({ status, decidedBy: actor.user?.id ?? null, decidedAt: new Date() })
      .where(eq(teamJoinRequests.id, req.id))
      .returning();
    await recordAudit(tx, actor, decision === 'approve' ? 'team_join.approved' : 'team_join.declined', { type: 'team_join_request', id: req.id }, { organizationId: team.organizationId, before: { status: 'pending' }, after: { teamId: team.id, userId: req.userId, status } });
    if (user) await tellRequesterOfDecision(tx, team, user, row!);
    return one(tx, row!);
  });
}

/** The person takes back their own pending request; anyone else's is 404. */
export async function withdrawJoinRequest(db: Db, actor: Actor, teamId: string, requestId: string) {
  // A credential acting as nobody has no request of its own to take back.
  if (!actor.user) throw notFound('Join request');
  const me = actor.user;
  return db.transaction(async (tx) => {
    // Only the person's own request matches, so another account's or another person's is 404.
    const req = await pendingRequest(tx, teamId, requestId, me.id);
    const [row] = await tx.update(teamJoinRequests).set({ status: 'withdrawn' }).where(eq(teamJoinRequests.id, req.id)).returning();
    const [team] = await tx.select({ organizationId: teams.organizationId }).from(teams).where(eq(teams.id, req.teamId));
    await recordAudit(tx, actor, 'team_join.withdrawn', { type: 'team_join_request', id: req.id }, { organizationId: team?.organizationId ?? null, before: { status: 'pending' }, after: { teamId: req.teamId, userId: req.userId, status: 'withdrawn' } });
    return one(tx, row!);
  });
}

/** The caller's own requests still waiting, newest first (the hosted app's Teams page). */
export async function listMyJoinRequests(db: Db, actor: Actor) {
  const me = asking(actor);
  const rows = await db
    .select()
    .from(teamJoinRequests)
    .where(and(eq(teamJoinRequests.userId, me.id), eq(teamJoinRequests.accountId, actor.accountId), eq(teamJoinRequests.status, 'pending')))
    .orderBy(desc(teamJoinRequests.createdAt))
    .limit(100);
  return { ok: true as const, joinRequests: await present(db, rows) };
}
