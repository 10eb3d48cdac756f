import { and, count, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { containsPattern } from '@/server/http/like';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { countedTotal, countedVersion, countWhere, readPage } from '@/db/queries/list-page';
import { assistants, organizations, rosterEntries, teamMemberships, teams, users, userSearchText, type UserRow } from '@/db/schema';
import { findUserByVerifiedEmail } from '@/server/access/verified-email';
import { visibleToUser } from '@/server/assistants/access';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { conflict, forbidden, notFound } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { activeMemberCount } from '@/server/teams/membership';
import { hireDefaultAssistant } from '@/server/organizations/default-assistant';
import { assertNotOnlyOrgAdmin } from '@/server/organizations/refusals';
import { assertOwnsNoSharedTeam } from '@/server/teams/refusals';
import { presentUser } from '@/server/user-record/present';
import type { DeprovisionBody, ListUsersQuery, UpdateUserBody } from './contracts';
import { recordAudit } from '@/server/audit/record';
import { auditUserUpdate } from './audit';

/**
 * Account-wide callers list every user; organization keys and admins their organization's; a
 * user only themself. The total of the account's or an organization's users, alone or by
 * status, is kept in list_counts; other filters count through the indexes.
 */
export async function listUsers(db: Db, actor: Actor, q: z.infer<typeof ListUsersQuery>) {
  const account = actor.accountId;
  const filters: SQL[] = [eq(users.accountId, account)];
  // Whose counters answer: the account's, or one organization's; none for a user listing themself.
  let owner: string | null = `a:${account}`;
  if (!isAccountWide(actor)) {
    const org = administeredOrganization(actor);
    if (org) {
      filters.push(eq(users.organizationId, org));
      owner = `o:${account}:${org}`;
    } else {
      filters.push(eq(users.id, actor.user?.id ?? ''));
      owner = null;
    }
  }
  const facets: Array<string | null> = [];
  if (q.status) {
    filters.push(eq(users.status, q.status));
    facets.push(`status:${q.status}`);
  }
  if (q.email) {
    filters.push(eq(users.email, q.email.trim().toLowerCase()));
    facets.push(null);
  }
  if (q.externalId) {
    filters.push(eq(users.externalId, q.externalId));
    facets.push(null);
  }
  if (q.organizationId) {
    filters.push(eq(users.organizationId, q.organizationId));
    if (owner === `a:${account}`) owner = `o:${account}:${q.organizationId}`;
    else if (owner !== `o:${account}:${q.organizationId}`) facets.push(null);
  }
  if (q.search) {
    // The combined text holds every searched field: the trigram index finds candidates through it.
    const term = containsPattern(q.search);
    filters.push(
      and(
        ilike(userSearchText(users), term),
        or(ilike(users.email, term), ilike(users.name, term), ilike(users.firstName, term), ilike(users.lastName, term), sql`(${users.firstName} || ' ' || ${users.lastName}) ILIKE ${term}`),
      )!,
    );
    facets.push(null);
  }
  const where = and(...filters)!;
  const facet = facets.length === 0 ? '' : facets.length === 1 ? facets[0] : null;
  const { rows, total } = await readPage(
    db,
    {
      table: users,
      parts: [where],
      total: q.search ? 'matches' : owner && facet !== null ? countedTotal('users', facet, [owner]) : countWhere(users, where),
      version: owner ? countedVersion('users', [owner]) : null,
      key: owner ? JSON.stringify(['users', owner, q.status ?? null, q.email ?? null, q.externalId ?? null, q.organizationId ?? null, q.search ?? null]) : null,
    },
    pageWindow(q),
  );
  return { ok: true as const, users: await Promise.all(rows.map((u) => presentUser(db, u))), ...pageInfo(q, total ?? 0) };
}

/**
 * A user an administrator may change: account-wide callers any user of the account;
 * organization keys and admins only their organization's users (403 for others, as the
 * spec states); anyone else gets 404 for users they cannot see and 403 for themself.
 */
async function administrableUser(db: Tx, actor: Actor, userId: string): Promise<UserRow> {
  const [user] = await db
    .select()
    .from(users)
    .where(and(eq(users.id, userId), eq(users.accountId, actor.accountId)))
    .limit(1);
  if (isAccountWide(actor)) {
    if (!user) throw notFound('User');
    return user;
  }
  const org = administeredOrganization(actor);
  if (org) {
    if (!user) throw notFound('User');
    if (user.organizationId !== org) throw forbidden('The user is not in your organization');
    return user;
  }
  if (!user || user.id !== actor.user?.id) throw notFound('User');
  throw forbidden('Changing users needs an account key or the organization admin role; use PATCH /profile for your own profile');
}

export async function updateUser(db: Db, actor: Actor, userId: string, input: z.infer<typeof UpdateUserBody>) {
  const updated = await db.transaction(async (tx) => {
    const user = await administrableUser(tx, actor, userId);
    const org = administeredOrganization(actor);
    if (input.organization !== undefined && input.organization !== null) {
      if (org && input.organization !== org) throw forbidden('An organization admin can only place users in their own organization');
      const [target] = await tx.select({ id: organizations.id }).from(organizations).where(and(eq(organizations.id, input.organization), eq(organizations.accountId, actor.accountId)));
      if (!target) throw notFound('Organization');
    }
    const leavingOrg = input.organization !== undefined && input.organization !== user.organizationId;
    const losingAdmin = input.organizationRole !== undefined && input.organizationRole !== 'admin';
    if (leavingOrg || losingAdmin) await assertNotOnlyOrgAdmin(tx, user);
    if (input.externalId) {
      const [taken] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.accountId, actor.accountId), eq(users.externalId, input.externalId), sql`${users.id} <> ${user.id}`));
      if (taken) throw conflict('externalId: already used by another user of the account');
    }
    const { avatar, organization, timezone, assistantEmail, ...rest } = input;
    const primaryAssistantId = assistantEmail === undefined ? undefined : assistantEmail === null ? null : await hireByEmail(tx, user, assistantEmail);
    // Moving to another organization makes the user a plain member unless a role is sent; leaving all organizations, a member.
    const organizationRole = organization === undefined ? rest.organizationRole : organization ? (rest.organizationRole ?? (leavingOrg ? 'member' : user.organizationRole)) : 'member';
    const set = changedFields({
      ...rest,
      avatarUrl: avatar,
      timezone,
      timezoneSetAt: timezone === undefined ? undefined : new Date(),
      primaryAssistantId,
      organizationId: organization,
      organizationRole,
    });
    if (!set) return user;
    let [u] = await tx.update(users).set(set).where(eq(users.id, user.id)).returning();
    // Moved into an organization: its default assistant joins their roster, as for anyone placed there.
    if (u.organizationId && u.organizationId !== user.organizationId) {
      const [org] = await tx.select().from(organizations).where(eq(organizations.id, u.organizationId));
      if (org) await hireDefaultAssistant(tx, org, u);
      [u] = await tx.select().from(users).where(eq(users.id, user.id));
    }
    if (u.organizationRole !== user.organizationRole || u.organizationId !== user.organizationId) await recordAudit(tx, actor, 'member.role_changed', { type: 'user', id: u.id }, { organizationId: u.organizationId ?? user.organizationId, before: { organizationId: user.organizationId, organizationRole: user.organizationRole }, after: { organizationId: u.organizationId, organizationRole: u.organizationRole } });
    if (u.organizationId !== user.organizationId) {
      if (user.organizationId) await recordAudit(tx, actor, 'member.removed', { type: 'user', id: u.id }, { organizationId: user.organizationId, before: { organizationId: user.organizationId, organizationRole: user.organizationRole }, after: { organizationId: u.organizationId } });
      if (u.organizationId) await recordAudit(tx, actor, 'member.added', { type: 'user', id: u.id }, { organizationId: u.organizationId, before: { organizationId: user.organizationId }, after: { organizationId: u.organizationId, organizationRole: u.organizationRole } });
    }
    await auditUserUpdate(tx, actor, user, u);
    return u;
  });
  return { ok: true as const, user: await presentUser(db, updated, { withIdentifiers: true }) };
}

/**
 * A member's organization role, as the hosted app's members page sets it. The rule is
 * PATCH /users/{userId}'s (administrableUser, inside updateUser); the page names the
 * organization too, and a user outside it is 404.
 */
export async function setOrganizationRole(db: Db, actor: Actor, orgId: string, userId: string, role: NonNullable<z.infer<typeof UpdateUserBody>['organizationRole']>) {
  const user = await administrableUser(db, actor, userId);
  if (user.organizationId !== orgId) throw notFound('User');
  return updateUser(db, actor, userId, { organizationRole: role });
}

/** `assistantEmail` names an assistant the user may see: it is hired (when needed) and becomes primary. */
async function hireByEmail(tx: Parameters<Parameters<Db['transaction']>[0]>[0], user: UserRow, email: string): Promise<string> {
  const [a] = await tx.select().from(assistants).where(and(eq(assistants.accountId, user.accountId), eq(assistants.email, email)));
  if (!a || !(await visibleToUser(tx, user, a))) throw notFound('Assistant');
  await tx.insert(rosterEntries).values({ userId: user.id, assistantId: a.id }).onConflictDoNothing();
  return a.id;
}

/** Removes the user whatever their memberships, after the two refusals. */
export async function deleteUser(db: Db, actor: Actor, userId: string) {
  const user = await administrableUser(db, actor, userId);
  await db.transaction(async (tx) => {
    await assertNotOnlyOrgAdmin(tx, user);
    await assertOwnsNoSharedTeam(tx, user);
    await removeUser(tx, user);
    await recordAudit(tx, actor, 'user.deleted', { type: 'user', id: user.id }, { organizationId: user.organizationId, before: { email: user.email, organizationId: user.organizationId }, after: null });
  });
  return { ok: true as const, user: { id: user.id, deleted: true as const, message: 'User deleted with their identifiers, memberships and data' } };
}

/** Deletes the user; their identifiers, memberships, keys and owned data go with them (cascades), and emptied teams are archived. */
export async function removeUser(db: Tx, user: UserRow) {
  const memberships = await db.select({ teamId: teamMemberships.teamId }).from(teamMemberships).where(eq(teamMemberships.userId, user.id));
  await db.execute(sql`DELETE FROM api_keys WHERE user_id = ${user.id}`);
  await db.delete(users).where(eq(users.id, user.id));
  for (const { teamId } of memberships) {
    if ((await activeMemberCount(db, teamId)) === 0) await db.update(teams).set({ status: 'archived' }).where(eq(teams.id, teamId));
  }
}

/**
 * Removes the user from one team; when they then belong to no team at all, the user is
 * deleted too. Refused with nothing changed for an only organization admin or the owner
 * of a team with other members.
 */
export async function deprovisionUser(db: Db, actor: Actor, input: z.infer<typeof DeprovisionBody>) {
  if (actor.user || actor.level === 'user') throw forbidden('Deprovisioning needs an account or organization key without X-User-Email');
  const orgScope = actor.level === 'organization' ? actor.organizationId : null;
  const [team] = await db
    .select()
    .from(teams)
    .where(and(eq(teams.id, input.teamId), eq(teams.accountId, actor.accountId)))
    .limit(1);
  if (!team || (orgScope && team.organizationId !== orgScope)) throw notFound('Team');
  // Only a verified address names a person: deprovisioning a claimed address must not remove the claimant.
  const user = await findUserByVerifiedEmail(db, actor.accountId, input.email);
  if (!user) return { ok: true as const, deleted: false, userDeleted: false, userId: null, message: 'No user has this email' };
  return db.transaction(async (tx) => {
    await assertNotOnlyOrgAdmin(tx, user);
    await assertOwnsNoSharedTeam(tx, user);
    const removed = await tx
      .delete(teamMemberships)
      .where(and(eq(teamMemberships.userId, user.id), eq(teamMemberships.teamId, team.id)))
      .returning({ id: teamMemberships.id });
    if ((await activeMemberCount(tx, team.id)) === 0) await tx.update(teams).set({ status: 'archived' }).where(eq(teams.id, team.id));
    const [{ left }] = await tx.select({ left: count() }).from(teamMemberships).where(eq(teamMemberships.userId, user.id));
    await recordAudit(tx, actor, 'user.deprovisioned', { type: 'user', id: user.id }, { organizationId: team.organizationId, before: { teamId: team.id, member: removed.length > 0 }, after: { teamId: null, userDeleted: left === 0 } });
    if (left === 0) {
      await removeUser(tx, user);
      return { ok: true as const, deleted: removed.length > 0, userDeleted: true, userId: user.id, message: 'User removed from the team and deleted' };
    }
    return {
      ok: true as const,
      deleted: removed.length > 0,
      userDeleted: false,
      userId: user.id,
      message: removed.length ? 'User removed from the team' : 'The user was not on this team',
    };
  });
}
