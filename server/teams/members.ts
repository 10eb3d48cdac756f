import { and, count, desc, eq, ilike, ne, or, type SQL } from 'drizzle-orm';
import { containsPattern } from '@/server/http/like';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { teamMemberships, teams, users, type TeamMembershipRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest, forbidden, notFound } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { findUserByVerifiedEmail } from '@/server/identifiers/verified-email';
import { presentUser } from '@/server/user-record/present';
import { teamFor } from './access';
import type { AddTeamMemberBody, ListTeamMembersQuery, UpdateTeamMemberBody } from './contracts';
import { activeMemberCount, joinTeam } from './membership';
import { placeElsewhere } from './placement';
import { assertMayJoin, handOverIfNeeded } from './join-rules';
import { makeOwner } from './transfer';
import { recordAudit } from '@/server/audit/record';

async function presentMember(db: Tx, m: TeamMembershipRow) {
  const [user] = await db.select().from(users).where(eq(users.id, m.userId));
  return {
    id: m.id,
    user: await presentUser(db as Db, user),
    role: m.role,
    status: m.status,
    multiplier: m.multiplier,
    // The primary assistant's card, once assistants exist.
    assistantInfo: null,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

/** Newest first; archived members only when asked for with status=archived. */
export async function listTeamMembers(db: Db, actor: Actor, teamId: string, q: z.infer<typeof ListTeamMembersQuery>) {
  const { team } = await teamFor(db, actor, teamId, 'read');
  const filters: SQL[] = [eq(teamMemberships.teamId, team.id), q.status ? eq(teamMemberships.status, q.status) : ne(teamMemberships.status, 'archived')];
  if (q.search) {
    const term = containsPattern(q.search);
    filters.push(or(ilike(users.email, term), ilike(users.name, term), ilike(users.firstName, term), ilike(users.lastName, term))!);
  }
  const where = and(...filters);
  const { limit, offset } = pageWindow(q);
  const [rows, [{ total }]] = await Promise.all([
    db.select({ m: teamMemberships }).from(teamMemberships).innerJoin(users, eq(users.id, teamMemberships.userId)).where(where).orderBy(desc(teamMemberships.createdAt), desc(teamMemberships.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(teamMemberships).innerJoin(users, eq(users.id, teamMemberships.userId)).where(where),
  ]);
  return { ok: true as const, members: await Promise.all(rows.map((r) => presentMember(db, r.m))), ...pageInfo(q, total) };
}

/**
 * Adds (or moves) a user to the team; their other memberships are archived. Who may be
 * added and who may pick the next owner of a team they leave: join-rules.ts, the same for
 * the REST API and the hosted app.
 */
export async function addTeamMember(db: Db, actor: Actor, teamId: string, input: z.infer<typeof AddTeamMemberBody>) {
  const member = await db.transaction(async (tx) => {
    const { team } = await teamFor(tx, actor, teamId, 'admin');
    const [user] = await tx.select().from(users).where(and(eq(users.id, input.userId), eq(users.accountId, actor.accountId)));
    if (!user) throw notFound('User');
    assertMayJoin(actor, user, team);
    const [current] = await tx
      .select()
      .from(teamMemberships)
      .where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.userId, user.id), eq(teamMemberships.status, 'active')));
    if (current) return current;
    await handOverIfNeeded(tx, actor, user, input.newOwnerId);
    const joined = await joinTeam(tx, user, team, input.role);
    await recordAudit(tx, actor, 'team_member.added', { type: 'team_member', id: joined.id }, { organizationId: team.organizationId, before: { userId: user.id, organizationId: user.organizationId }, after: { userId: user.id, teamId: team.id, role: joined.role } });
    // Joining an organization's team made a user without one its member (membership.ts).
    if (team.organizationId && user.organizationId !== team.organizationId) await recordAudit(tx, actor, 'member.added', { type: 'user', id: user.id }, { organizationId: team.organizationId, after: { organizationId: team.organizationId, organizationRole: 'member', via: 'team' } });
    return joined;
  });
  return { ok: true as const, member: await presentMember(db, member) };
}

/**
 * The hosted app adds people by email. Only a verified email names a person; an address
 * nobody holds verified is 404 like anyone addTeamMember refuses, so the form reveals nothing.
 */
export async function addTeamMemberByEmail(db: Db, actor: Actor, teamId: string, input: { email: string; role: 'member' | 'admin' }) {
  await teamFor(db, actor, teamId, 'admin');
  const user = await findUserByVerifiedEmail(db, actor.accountId, input.email);
  if (!user) throw notFound('User');
  return addTeamMember(db, actor, teamId, { userId: user.id, role: input.role });
}

async function membershipOf(tx: Tx, teamId: string, memberId: string) {
  const [m] = await tx.select().from(teamMemberships).where(and(eq(teamMemberships.id, memberId), eq(teamMemberships.teamId, teamId)));
  if (!m) throw notFound('Member');
  return m;
}

/**
 * A team admin cannot change the owner, grant owner, or change another admin except to
 * member. When the owner (or an elevated caller) makes someone owner, the former owner becomes admin.
 */
export async function updateTeamMember(db: Db, actor: Actor, teamId: string, memberId: string, input: z.infer<typeof UpdateTeamMemberBody>) {
  const updated = await db.transaction(async (tx) => {
    const access = await teamFor(tx, actor, teamId, 'admin');
    const m = await membershipOf(tx, access.team.id, memberId);
    const ownerPowers = access.elevated || access.callerRole === 'owner';
    if (!ownerPowers) {
      if (m.role === 'owner') throw forbidden('A team admin cannot change the owner');
      if (input.role === 'owner') throw forbidden('Only the owner can hand over ownership');
      if (m.role === 'admin' && m.userId !== actor.user?.id && input.role !== undefined && input.role !== 'member') {
        throw forbidden('A team admin can only change another admin to member');
      }
      if (m.role === 'admin' && m.userId !== actor.user?.id && input.status !== undefined) throw forbidden('A team admin cannot change another admin’s status');
    }
    if (input.role === 'owner' && m.role !== 'owner') {
      const [owner] = await tx.select().from(teamMemberships).where(and(eq(teamMemberships.teamId, access.team.id), eq(teamMemberships.role, 'owner')));
      if (owner) await makeOwner(tx, access.team.id, owner.userId, m.userId, 'admin');
      else await tx.update(teamMemberships).set({ role: 'owner' }).where(eq(teamMemberships.id, m.id));
    } else if (input.role !== undefined && m.role === 'owner' && input.role !== 'owner') {
      throw badRequest('role: hand ownership to someone else first (role owner on them)');
    } else if (input.role !== undefined) {
      await tx.update(teamMemberships).set({ role: input.role }).where(eq(teamMemberships.id, m.id));
    }
    if (input.status !== undefined && input.status !== m.status) {
      if (m.role === 'owner' && input.status !== 'active') throw badRequest('status: the owner stays active; transfer ownership first');
      if (input.status === 'active') {
        const [user] = await tx.select().from(users).where(eq(users.id, m.userId));
        const [team] = await tx.select().from(teams).where(eq(teams.id, access.team.id));
        // Reactivating pulls the person back from wherever they are now: the same rules as adding them.
        assertMayJoin(actor, user, team);
        await handOverIfNeeded(tx, actor, user, undefined);
        await joinTeam(tx, user, team, (await membershipOf(tx, access.team.id, memberId)).role);
      } else {
        await tx.update(teamMemberships).set({ status: input.status }).where(eq(teamMemberships.id, m.id));
        if (m.status === 'active') await placeElsewhere(tx, m.userId, access.team.id);
        if ((await activeMemberCount(tx, access.team.id)) === 0) await tx.update(teams).set({ status: 'archived' }).where(eq(teams.id, access.team.id));
      }
    }
    const after = await membershipOf(tx, access.team.id, memberId);
    if (after.role !== m.role || after.status !== m.status) await recordAudit(tx, actor, 'team_member.role_changed', { type: 'team_member', id: m.id }, { organizationId: access.team.organizationId, before: { userId: m.userId, role: m.role, status: m.status }, after: { userId: m.userId, role: after.role, status: after.status } });
    return after;
  });
  return { ok: true as const, member: await presentMember(db, updated) };
}

/** The owner cannot be removed, admins cannot remove admins, and nobody removes themself. */
export async function removeTeamMember(db: Db, actor: Actor, teamId: string, memberId: string) {
  await db.transaction(async (tx) => {
    const access = await teamFor(tx, actor, teamId, 'admin');
    const m = await membershipOf(tx, access.team.id, memberId);
    if (m.role === 'owner') throw forbidden('The owner cannot be removed; transfer ownership first');
    if (m.userId === actor.user?.id) throw forbidden('You cannot remove yourself');
    if (m.role === 'admin' && !access.elevated && access.callerRole === 'admin') throw forbidden('Admins cannot remove admins');
    await tx.delete(teamMemberships).where(eq(teamMemberships.id, m.id));
    if (m.status === 'active') await placeElsewhere(tx, m.userId, access.team.id);
    await recordAudit(tx, actor, 'team_member.removed', { type: 'team_member', id: m.id }, { organizationId: access.team.organizationId, before: { userId: m.userId, teamId: access.team.id, role: m.role, status: m.status }, after: null });
  });
  return { ok: true as const, member: { id: memberId, deleted: true as const, message: 'Removed from the team' } };
}

/** Called as the current owner: the new owner must be an active member; the old owner becomes member. */
export async function transferOwnership(db: Db, actor: Actor, teamId: string, newOwnerId: string) {
  const team = await db.transaction(async (tx) => {
    const access = await teamFor(tx, actor, teamId, 'read');
    if (access.callerRole !== 'owner' || !actor.user) throw forbidden('Only the current owner, acting as themself, can transfer ownership');
    await makeOwner(tx, access.team.id, actor.user.id, newOwnerId, 'member');
    await recordAudit(tx, actor, 'team.ownership_transferred', { type: 'team', id: access.team.id }, { organizationId: access.team.organizationId, before: { owner: actor.user.id }, after: { owner: newOwnerId } });
    return access.team;
  });
  return { ok: true as const, team: { id: team.id, owner: newOwnerId } };
}
