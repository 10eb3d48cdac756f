import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { teamMemberships, teams, users, type TeamRow } from '@/db/schema';
import { badRequest, notFound } from '@/server/http/errors';
import { joinTeam } from '@/server/teams/membership';
import { placeElsewhere } from '@/server/teams/placement';
import { GroupBody, PatchedGroup } from './contracts';
import { compileFilter } from './filter';
import { applyPatch } from './patch';
import { project, type Selection } from './projection';
import { listResponse, type ListQuery } from './query';
import { GROUP, GROUP_SCHEMA } from './schema';
import type { ScimCaller, ScimScope } from './token';
import { auditScim } from './audit';

type Member = { id: string; email: string };

async function membersOf(db: Db, teamId: string): Promise<Member[]> {
  return db
    .select({ id: users.id, email: users.email })
    .from(teamMemberships)
    .innerJoin(users, eq(users.id, teamMemberships.userId))
    .where(and(eq(teamMemberships.teamId, teamId), eq(teamMemberships.status, 'active')));
}

/** The group's SCIM view; without `members` when the request leaves them out (a large team costs a query). */
function toScimGroup(base: string, t: TeamRow, members: Member[] | null) {
  return {
    schemas: [GROUP_SCHEMA],
    id: t.id,
    displayName: t.name,
    ...(members ? { members: members.map((m) => ({ value: m.id, display: m.email })) } : {}),
    meta: { resourceType: 'Group', created: t.createdAt.toISOString(), lastModified: t.updatedAt.toISOString(), location: `${base}/Groups/${t.id}` },
  };
}

/** Whether an answer shows members at all (Entra reads groups with excludedAttributes=members). */
const showsMembers = (sel: Selection) => 'members' in project(GROUP, { members: [] }, sel);

export async function presentScimGroup(db: Db, base: string, t: TeamRow, sel?: Selection) {
  return toScimGroup(base, t, !sel || showsMembers(sel) ? await membersOf(db, t.id) : null);
}

async function orgTeam(db: Db, caller: ScimCaller, id: string) {
  const [t] = await db.select().from(teams).where(and(eq(teams.id, id), eq(teams.organizationId, caller.organizationId), eq(teams.status, 'active')));
  if (!t) throw notFound('Group');
  return t;
}

/**
 * Makes the team's active members exactly `memberIds`, which must all be users of the
 * organization: anyone else (another organization's user, a user without one, an unknown id)
 * is 400 with nothing changed, so a group never pulls a person into the organization. Members
 * sent in POST and PUT bodies are recorded too, not only those from PATCH.
 */
async function syncMembers(tx: Tx, caller: ScimCaller, team: TeamRow, memberIds: string[]) {
  const wanted = new Set(memberIds);
  const current = await tx.select().from(teamMemberships).where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.status, 'active')));
  const joining = [...wanted].filter((id) => !current.some((m) => m.userId === id));
  const found = joining.length
    ? await tx.select().from(users).where(and(inArray(users.id, joining), eq(users.accountId, caller.accountId), eq(users.organizationId, caller.organizationId)))
    : [];
  const outsider = joining.find((id) => !found.some((u) => u.id === id));
  if (outsider) throw badRequest(`members: ${outsider} is not a user of this organization`);
  for (const m of current) {
    if (wanted.has(m.userId) || m.role === 'owner') continue;
    await tx.update(teamMemberships).set({ status: 'archived' }).where(eq(teamMemberships.id, m.id));
    await placeElsewhere(tx, m.userId, team.id);
    await auditScim(tx, caller, 'team_member.removed', { type: 'team_member', id: m.id }, { before: { userId: m.userId, teamId: team.id, role: m.role, status: m.status }, after: { status: 'archived' } });
  }
  for (const u of found) {
    const joined = await joinTeam(tx, u, team, 'member');
    await auditScim(tx, caller, 'team_member.added', { type: 'team_member', id: joined.id }, { after: { userId: u.id, teamId: team.id, role: joined.role } });
  }
}

export async function listScimGroups(db: Db, caller: ScimScope, q: ListQuery) {
  const test = q.filter ? compileFilter(GROUP, q.filter) : null;
  const rows = await db.select().from(teams).where(and(eq(teams.organizationId, caller.organizationId), eq(teams.status, 'active'))).orderBy(asc(teams.createdAt));
  // A filter on members needs them even when the answer leaves them out.
  const withMembers = showsMembers(q) || /members/i.test(q.filter ?? '');
  const all = await Promise.all(rows.map(async (t) => toScimGroup(caller.base, t, withMembers ? await membersOf(db, t.id) : null)));
  const list = listResponse(test ? all.filter(test) : all, q);
  return { ...list, Resources: list.Resources.map((r) => project(GROUP, r, q)) };
}

export async function getScimGroup(db: Db, caller: ScimScope, id: string, sel?: Selection) {
  return presentScimGroup(db, caller.base, await orgTeam(db, caller, id), sel);
}

function parseGroup(raw: unknown) {
  const parsed = GroupBody.safeParse(raw);
  if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return parsed.data;
}

export async function createScimGroup(db: Db, caller: ScimScope, raw: unknown) {
  const body = parseGroup(raw);
  // One transaction: a refused member list leaves no half-made group behind.
  const team = await db.transaction(async (tx) => {
    const [t] = await tx.insert(teams).values({ accountId: caller.accountId, organizationId: caller.organizationId, name: body.displayName }).returning();
    await auditScim(tx, caller, 'team.created', { type: 'team', id: t.id }, { after: { name: t.name, organizationId: caller.organizationId } });
    await syncMembers(tx, caller, t, (body.members ?? []).map((m) => m.value));
    return t;
  });
  return presentScimGroup(db, caller.base, team);
}

export async function replaceScimGroup(db: Db, caller: ScimScope, id: string, raw: unknown) {
  const team = await orgTeam(db, caller, id);
  const body = parseGroup(raw);
  const t = await db.transaction(async (tx) => {
    const [renamed] = await tx.update(teams).set({ name: body.displayName }).where(eq(teams.id, team.id)).returning();
    if (renamed.name !== team.name) await auditScim(tx, caller, 'team.updated', { type: 'team', id: team.id }, { before: { name: team.name }, after: { name: renamed.name } });
    if (body.members) await syncMembers(tx, caller, renamed, body.members.map((m) => m.value));
    return renamed;
  });
  return presentScimGroup(db, caller.base, t);
}

/** Applies RFC 7644 PATCH operations to the group's SCIM view (patch.ts), then stores its name and members. */
export async function patchScimGroup(db: Db, caller: ScimScope, id: string, raw: unknown) {
  const team = await orgTeam(db, caller, id);
  const before = await presentScimGroup(db, caller.base, team);
  const checked = PatchedGroup.safeParse(applyPatch(GROUP, before, raw));
  if (!checked.success) throw badRequest(`Operations: the patched group is invalid: ${checked.error.issues.map((i) => `${i.path.join('.') || 'group'}: ${i.message}`).join('; ')}`);
  const patched = checked.data;
  const t = await db.transaction(async (tx) => {
    const [renamed] = await tx.update(teams).set({ name: patched.displayName ?? team.name }).where(eq(teams.id, team.id)).returning();
    if (renamed.name !== team.name) await auditScim(tx, caller, 'team.updated', { type: 'team', id: team.id }, { before: { name: team.name }, after: { name: renamed.name } });
    await syncMembers(tx, caller, renamed, (patched.members ?? []).map((m) => m.value));
    return renamed;
  });
  return presentScimGroup(db, caller.base, t);
}

/** Deleting a group archives the team; its members move to other teams. */
export async function deleteScimGroup(db: Db, caller: ScimCaller, id: string) {
  const team = await orgTeam(db, caller, id);
  await db.transaction(async (tx) => {
    const members = await tx.select().from(teamMemberships).where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.status, 'active')));
    await tx.update(teamMemberships).set({ status: 'archived' }).where(eq(teamMemberships.teamId, team.id));
    for (const m of members) await placeElsewhere(tx, m.userId, team.id);
    await tx.update(teams).set({ status: 'archived' }).where(eq(teams.id, team.id));
    // SCIM's delete archives the team (decisions: SCIM 2.0); it is the IdP removing the group.
    await auditScim(tx, caller, 'team.deleted', { type: 'team', id: team.id }, { before: { name: team.name, members: members.map((m) => m.userId) }, after: { status: 'archived' } });
  });
}
