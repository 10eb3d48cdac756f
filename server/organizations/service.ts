import { and, count, desc, eq, gt, ilike, isNull, or, sql } from 'drizzle-orm';
import { containsPattern } from '@/server/http/like';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { countedTotal, countedVersion, readPage } from '@/db/queries/list-page';
import { assistants, organizations, teamMemberships, teams, users, userSearchText, type OrganizationRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { BareRefusal, badRequest, forbidden, notFound } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { assertNotOnlyOrgAdmin } from './refusals';
import { organizationFor } from './access';
import { usableByEveryMember } from './default-assistant';
import { scimView, ssoView } from './sso';
import type { CreateOrganizationBody, ListMembersQuery, ModelTiersBody, UpdateOrganizationBody } from './contracts';
import { recordAudit } from '@/server/audit/record';

const CREATIONS_PER_MINUTE = 10;

async function toPublic(db: Db, o: OrganizationRow, actor: Actor) {
  const [{ n }] = await db.select({ n: count() }).from(users).where(eq(users.organizationId, o.id));
  return {
    id: o.id,
    account: o.accountId,
    name: o.name,
    generalInfo: o.generalInfo,
    memberCount: n,
    defaultTeam: o.defaultTeamId,
    defaultAssistant: o.defaultAssistantId,
    ...(o.sso ? { sso: ssoView(o, actor) } : {}),
    ...(scimView(o) ? { scim: scimView(o) } : {}),
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

export async function listOrganizations(db: Db, actor: Actor, q: { page: number; perPage: number }) {
  const scope = isAccountWide(actor) ? undefined : eq(organizations.id, actor.level === 'organization' && !actor.user ? actor.organizationId! : (actor.user?.organizationId ?? ''));
  const where = and(eq(organizations.accountId, actor.accountId), scope);
  const { limit, offset } = pageWindow(q);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(organizations).where(where).orderBy(desc(organizations.createdAt), desc(organizations.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(organizations).where(where),
  ]);
  return { ok: true as const, organizations: await Promise.all(rows.map((o) => toPublic(db, o, actor))), ...pageInfo(q, total) };
}

/** Account-wide credentials, or an organization admin who then becomes the new organization's admin. */
export async function createOrganization(db: Db, actor: Actor, input: z.infer<typeof CreateOrganizationBody>) {
  const creator = actor.user;
  if (!isAccountWide(actor) && !(creator && administeredOrganization(actor))) {
    throw forbidden('Creating an organization needs an account key or the organization admin role');
  }
  const [{ recent }] = await db
    .select({ recent: count() })
    .from(organizations)
    .where(and(eq(organizations.accountId, actor.accountId), gt(organizations.createdAt, sql`now() - interval '1 minute'`)));
  if (recent >= CREATIONS_PER_MINUTE) {
    const retryAfter = Math.ceil(Date.now() / 1000) + 60;
    throw new BareRefusal(429, { ok: false, error: `More than ${CREATIONS_PER_MINUTE} organizations created in a minute`, retryAfter }, { 'Retry-After': '60' });
  }
  const org = await db.transaction(async (tx) => {
    if (creator) await assertNotOnlyOrgAdmin(tx, creator);
    const [o] = await tx.insert(organizations).values({ accountId: actor.accountId, name: input.name, generalInfo: input.generalInfo ?? '' }).returning();
    if (creator) await tx.update(users).set({ organizationId: o.id, organizationRole: 'admin' }).where(eq(users.id, creator.id));
    await recordAudit(tx, actor, 'organization.created', { type: 'organization', id: o.id }, { organizationId: o.id, after: { name: o.name, admin: creator?.id ?? null } });
    if (creator) await recordAudit(tx, actor, 'member.added', { type: 'user', id: creator.id }, { organizationId: o.id, before: { organizationId: creator.organizationId, organizationRole: creator.organizationRole }, after: { organizationId: o.id, organizationRole: 'admin' } });
    return o;
  });
  return { ok: true as const, organization: await toPublic(db, org, actor) };
}

export async function getOrganization(db: Db, actor: Actor, orgId: string) {
  return { ok: true as const, organization: await toPublic(db, await organizationFor(db, actor, orgId, 'member'), actor) };
}

export async function updateOrganization(db: Db, actor: Actor, orgId: string, input: z.infer<typeof UpdateOrganizationBody>) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  if (input.defaultTeam) {
    const [team] = await db.select().from(teams).where(and(eq(teams.id, input.defaultTeam), eq(teams.accountId, actor.accountId)));
    if (!team) throw notFound('Team');
    if (team.organizationId !== org.id) throw badRequest('defaultTeam: must be a team of this organization');
  }
  if (input.defaultAssistant) {
    const [a] = await db
      .select({ id: assistants.id, scope: assistants.scope, organizationId: assistants.organizationId })
      .from(assistants)
      .where(and(eq(assistants.id, input.defaultAssistant), eq(assistants.accountId, actor.accountId), isNull(assistants.deletedAt)));
    if (!a) throw notFound('Assistant');
    if (!usableByEveryMember(a, org.id)) {
      throw badRequest('defaultAssistant: must be an assistant every member can use (account-wide, or this organization’s)', { fields: [{ field: 'defaultAssistant', problem: 'is not usable by every member' }] });
    }
  }
  const set = changedFields({
    name: input.name,
    generalInfo: input.generalInfo,
    defaultTeamId: input.defaultTeam,
    defaultAssistantId: input.defaultAssistant,
  });
  const [u] = set ? await db.transaction(async (tx) => {
    const rows = await tx.update(organizations).set(set).where(eq(organizations.id, org.id)).returning();
    const keys = Object.keys(set) as Array<keyof typeof set & keyof OrganizationRow>;
    await recordAudit(tx, actor, 'organization.updated', { type: 'organization', id: org.id }, { organizationId: org.id, before: Object.fromEntries(keys.map((k) => [k, org[k]])), after: Object.fromEntries(keys.map((k) => [k, rows[0][k]])) });
    return rows;
  }) : [org];
  return { ok: true as const, organization: await toPublic(db, u, actor) };
}

/** Users and teams stay (outside any organization); teams left with no members are deleted. */
export async function deleteOrganization(db: Db, actor: Actor, orgId: string) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  await db.transaction(async (tx) => {
    const members = await tx.update(users).set({ organizationId: null, organizationRole: 'member' }).where(eq(users.organizationId, org.id)).returning({ id: users.id });
    const orgTeams = await tx.select({ id: teams.id }).from(teams).where(eq(teams.organizationId, org.id));
    for (const t of orgTeams) {
      const [{ n }] = await tx.select({ n: count() }).from(teamMemberships).where(and(eq(teamMemberships.teamId, t.id), eq(teamMemberships.status, 'active')));
      if (n === 0) await tx.delete(teams).where(eq(teams.id, t.id));
      else await tx.update(teams).set({ organizationId: null }).where(eq(teams.id, t.id));
    }
    await tx.delete(organizations).where(eq(organizations.id, org.id));
    await recordAudit(tx, actor, 'organization.deleted', { type: 'organization', id: org.id }, { organizationId: org.id, before: { name: org.name, members: members.length, teams: orgTeams.length }, after: null });
  });
  return { ok: true as const, organization: { id: org.id, deleted: true as const, message: 'Organization deleted; its users and teams remain' } };
}


/** Newest first; the total is the organization's counter (list_counts), or a search's matches counted as they are read. */
export async function listMembers(db: Db, actor: Actor, orgId: string, q: z.infer<typeof ListMembersQuery>) {
  const org = await organizationFor(db, actor, orgId, 'member');
  const term = q.search ? containsPattern(q.search) : null;
  // The combined text holds every searched field: the trigram index finds candidates through it.
  const search = term ? and(ilike(userSearchText(users), term), or(ilike(users.email, term), ilike(users.name, term), ilike(users.firstName, term), ilike(users.lastName, term))) : undefined;
  const where = and(eq(users.organizationId, org.id), eq(users.accountId, org.accountId), search)!;
  const owner = `o:${org.accountId}:${org.id}`;
  const { rows, total } = await readPage(
    db,
    {
      table: users,
      parts: [where],
      total: term ? 'matches' : countedTotal('users', '', [owner]),
      version: countedVersion('users', [owner]),
      key: JSON.stringify(['members', owner, q.search ?? null]),
    },
    pageWindow(q),
  );
  return {
    ok: true as const,
    members: rows.map((u) => ({ id: u.id, email: u.email, name: u.name, avatarUrl: u.avatarUrl, organizationRole: u.organizationRole, createdAt: u.createdAt.toISOString() })),
    ...pageInfo(q, total ?? 0),
  };
}

export async function getModelTiers(db: Db, actor: Actor, orgId: string) {
  return tiersOf(await organizationFor(db, actor, orgId, 'member'));
}

export async function setModelTiers(db: Db, actor: Actor, orgId: string, input: z.infer<typeof ModelTiersBody>) {
  const org = await organizationFor(db, actor, orgId, 'admin');
  const set = changedFields({ chatModelTier: input.chat, taskModelTier: input.task });
  const [u] = set ? await db.transaction(async (tx) => {
    const rows = await tx.update(organizations).set(set).where(eq(organizations.id, org.id)).returning();
    await recordAudit(tx, actor, 'model_tiers.changed', { type: 'organization', id: org.id }, { organizationId: org.id, before: { chat: org.chatModelTier, task: org.taskModelTier }, after: { chat: rows[0].chatModelTier, task: rows[0].taskModelTier } });
    return rows;
  }) : [org];
  return tiersOf(u);
}

/** The account default is a console setting not modelled yet, so the fallback is `medium`. */
const tiersOf = (o: OrganizationRow) => ({
  ok: true as const,
  modelTiers: { chat: o.chatModelTier, task: o.taskModelTier },
  effective: { chat: o.chatModelTier ?? 'medium', task: o.taskModelTier ?? 'medium' },
});
