import { and, asc, eq } from 'drizzle-orm';
import { filter as scimFilter, parse as parseFilter } from 'scim2-parse-filter';
import { scimPatch } from 'scim-patch';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { teamMemberships, teams, users, type TeamRow } from '@/db/schema';
import { badRequest, notFound } from '@/server/http/errors';
import { joinTeam } from '@/server/teams/membership';
import { placeElsewhere } from '@/server/teams/placement';
import type { ScimCaller } from './token';
import { LIST_SCHEMA, normalizeOps } from './users';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const GroupBody = z.object({ displayName: z.string().trim().min(1), externalId: z.string().optional(), members: z.array(z.object({ value: z.string() }).passthrough()).optional() }).passthrough();

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
 * Makes the team's active members exactly `memberIds` (users of the organization). Members
 * sent in POST and PUT bodies are recorded too, not only those from PATCH.
 */
async function syncMembers(db: Db, caller: ScimCaller, team: TeamRow, memberIds: string[]) {
  await db.transaction(async (tx) => {
    const wanted = new Set(memberIds);
    const current = await tx.select().from(teamMemberships).where(and(eq(teamMemberships.teamId, team.id), eq(teamMemberships.status, 'active')));
    for (const m of current) {
      if (wanted.has(m.userId) || m.role === 'owner') continue;
      await tx.update(teamMemberships).set({ status: 'archived' }).where(eq(teamMemberships.id, m.id));
      await placeElsewhere(tx, m.userId, team.id);
    }
    for (const id of wanted) {
      if (current.some((m) => m.userId === id)) continue;
      const [u] = await tx.select().from(users).where(and(eq(users.id, id), eq(users.organizationId, caller.organizationId)));
      if (!u) throw badRequest(`members: ${id} is not a user of this organization`);
      await joinTeam(tx, u, team, 'member');
    }
  });
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
  const [team] = await db.insert(teams).values({ accountId: caller.accountId, organizationId: caller.organizationId, name: body.displayName }).returning();
  await syncMembers(db, caller, team, (body.members ?? []).map((m) => m.value));
  return toScimGroup(db, team);
}

export async function replaceScimGroup(db: Db, caller: ScimCaller, id: string, raw: unknown) {
  const team = await orgTeam(db, caller, id);
  const body = parseGroup(raw);
  const [t] = await db.update(teams).set({ name: body.displayName }).where(eq(teams.id, team.id)).returning();
  if (body.members) await syncMembers(db, caller, t, body.members.map((m) => m.value));
  return toScimGroup(db, t);
}

export async function patchScimGroup(db: Db, caller: ScimCaller, id: string, raw: unknown) {
  const team = await orgTeam(db, caller, id);
  const current = await toScimGroup(db, team);
  let patched: { displayName?: string; members?: Array<{ value: string }> };
  try {
    patched = scimPatch(structuredClone(current) as never, normalizeOps(raw)) as never;
  } catch (e) {
    throw badRequest(`Operations: ${(e as Error).message}`);
  }
  const [t] = await db.update(teams).set({ name: patched.displayName ?? team.name }).where(eq(teams.id, team.id)).returning();
  await syncMembers(db, caller, t, (patched.members ?? []).map((m) => m.value));
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
