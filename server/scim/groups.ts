import { and, asc, eq, inArray } from 'drizzle-orm';
import { filter as scimFilter, parse as parseFilter } from 'scim2-parse-filter';
import { scimPatch, type ScimPatchOperation } from 'scim-patch';
import { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { teamMemberships, teams, users, type TeamRow } from '@/db/schema';
import { badRequest, notFound } from '@/server/http/errors';
import { joinTeam } from '@/server/teams/membership';
import { placeElsewhere } from '@/server/teams/placement';
import { GroupBody, GroupMembers, PatchedGroup } from './contracts';
import type { ScimCaller } from './token';
import { LIST_SCHEMA, normalizeOps } from './users';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

async function toScimGroup(db: Db, t: TeamRow) {
  const members = await db
    .select({ id: users.id, email: users.email })
    .from(teamMemberships)
    .innerJoin(users, eq(users.id, teamMemberships.userId))
    .where(and(eq(teamMemberships.teamId, t.id), eq(teamMemberships.status, 'active')));
  return {
    schemas: [GROUP_SCHEMA],
    id: t.id,
    displayName: t.name,
    members: members.map((m) => ({ value: m.id, display: m.email })),
    meta: { resourceType: 'Group', created: t.createdAt.toISOString(), lastModified: t.updatedAt.toISOString(), location: `/api/scim/v2/Groups/${t.id}` },
  };
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
  }
  for (const u of found) await joinTeam(tx, u, team, 'member');
}

export async function listScimGroups(db: Db, caller: ScimCaller, q: { filter?: string; startIndex: number; count: number }) {
  const rows = await db.select().from(teams).where(and(eq(teams.organizationId, caller.organizationId), eq(teams.status, 'active'))).orderBy(asc(teams.createdAt));
  let resources = await Promise.all(rows.map((t) => toScimGroup(db, t)));
  if (q.filter) {
    try {
      resources = resources.filter(scimFilter(parseFilter(q.filter)));
    } catch {
      throw badRequest(`filter: cannot parse ${q.filter}`);
    }
  }
  const page = resources.slice(q.startIndex - 1, q.startIndex - 1 + q.count);
  return { schemas: [LIST_SCHEMA], totalResults: resources.length, startIndex: q.startIndex, itemsPerPage: page.length, Resources: page };
}

export async function getScimGroup(db: Db, caller: ScimCaller, id: string) {
  return toScimGroup(db, await orgTeam(db, caller, id));
}

function parseGroup(raw: unknown) {
  const parsed = GroupBody.safeParse(raw);
  if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return parsed.data;
}

export async function createScimGroup(db: Db, caller: ScimCaller, raw: unknown) {
  const body = parseGroup(raw);
  // One transaction: a refused member list leaves no half-made group behind.
  const team = await db.transaction(async (tx) => {
    const [t] = await tx.insert(teams).values({ accountId: caller.accountId, organizationId: caller.organizationId, name: body.displayName }).returning();
    await syncMembers(tx, caller, t, (body.members ?? []).map((m) => m.value));
    return t;
  });
  return toScimGroup(db, team);
}

export async function replaceScimGroup(db: Db, caller: ScimCaller, id: string, raw: unknown) {
  const team = await orgTeam(db, caller, id);
  const body = parseGroup(raw);
  const t = await db.transaction(async (tx) => {
    const [renamed] = await tx.update(teams).set({ name: body.displayName }).where(eq(teams.id, team.id)).returning();
    if (body.members) await syncMembers(tx, caller, renamed, body.members.map((m) => m.value));
    return renamed;
  });
  return toScimGroup(db, t);
}

const issuesText = (error: z.ZodError, prefix?: string) => error.issues.map((i) => `${[...(prefix ? [prefix] : []), ...i.path].join('.') || 'group'}: ${i.message}`).join('; ');

/** An add or replace of members must carry a list of `{value}`, whether by path or inside a path-less value. */
function checkMemberValues(ops: ScimPatchOperation[]) {
  ops.forEach((o, n) => {
    if (o.op !== 'add' && o.op !== 'replace') return;
    const value = (o as { value?: unknown }).value;
    const path = (o as { path?: string }).path;
    let sent: { at: string; v: unknown } | null = null;
    if (path !== undefined && /^members$/i.test(path.trim())) sent = { at: `Operations.${n}.value`, v: value };
    else if (path === undefined && value && typeof value === 'object' && 'members' in value) sent = { at: `Operations.${n}.value.members`, v: (value as { members: unknown }).members };
    if (!sent) return;
    const parsed = GroupMembers.safeParse(sent.v);
    if (!parsed.success) throw badRequest(`${issuesText(parsed.error, sent.at)} (members must be a list of {value})`);
  });
}

export async function patchScimGroup(db: Db, caller: ScimCaller, id: string, raw: unknown) {
  const team = await orgTeam(db, caller, id);
  const current = await toScimGroup(db, team);
  const ops = normalizeOps(raw);
  checkMemberValues(ops);
  let result: unknown;
  try {
    result = scimPatch(structuredClone(current) as never, ops);
  } catch (e) {
    throw badRequest(`Operations: ${(e as Error).message}`);
  }
  const checked = PatchedGroup.safeParse(result);
  if (!checked.success) throw badRequest(`Operations: the patched group is invalid: ${issuesText(checked.error)}`);
  const patched = checked.data;
  const t = await db.transaction(async (tx) => {
    const [renamed] = await tx.update(teams).set({ name: patched.displayName ?? team.name }).where(eq(teams.id, team.id)).returning();
    await syncMembers(tx, caller, renamed, (patched.members ?? []).map((m) => m.value));
    return renamed;
  });
  return toScimGroup(db, t);
}

/** Deleting a group archives the team; its members move to other teams. */
export async function deleteScimGroup(db: Db, caller: ScimCaller, id: string) {
  const team = await orgTeam(db, caller, id);
  await db.transaction(async (tx) => {
    const members = await tx.select().from(teamMemberships).where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.status, 'active')));
    await tx.update(teamMemberships).set({ status: 'archived' }).where(eq(teamMemberships.teamId, team.id));
    for (const m of members) await placeElsewhere(tx, m.userId, team.id);
    await tx.update(teams).set({ status: 'archived' }).where(eq(teams.id, team.id));
  });
}
