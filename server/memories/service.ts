import { and, count, desc, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { containsPattern } from '@/server/http/like';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { activeMemberships } from '@/db/queries/memberships';
import { memories, tasks, teams, type MemoryRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { badRequest, forbidden, notFound } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import type { CreateMemoryBody, ListMemoriesQuery, UpdateMemoryBody } from './contracts';
import { ACCEPTED_TAGS_MESSAGE, normalizeTags } from './tags';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toPublicMemory(m: MemoryRow, now = new Date()) {
  const isExpired = m.endDate !== null && m.endDate < now;
  return {
    id: m.id,
    account: m.accountId,
    user: m.userId,
    kind: m.kind,
    resourceType: m.resourceType,
    tags: m.tags,
    content: m.content,
    data: m.data ?? null,
    source: m.source,
    scope: m.scope,
    visibility: m.visibility,
    authoredBy: m.userId,
    assistant: m.assistantId,
    team: m.teamId,
    startDate: iso(m.startDate),
    endDate: iso(m.endDate),
    isActive: !isExpired && (m.startDate === null || m.startDate <= now),
    isExpired,
    pinned: m.pinned,
    metadata: m.metadata,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

/** Teams the user is an active member of: whose team-scoped memories they see. */
async function activeTeamIds(db: Db, userId: string): Promise<string[]> {
  return (await activeMemberships(db, userId)).map(({ m }) => m.teamId);
}

/** A user sees their own memories and team-scoped memories of their active teams; nothing else. */
async function visibleFilter(db: Db, actor: Actor): Promise<SQL> {
  const user = requireUser(actor);
  const teamIds = await activeTeamIds(db, user.id);
  return and(
    eq(memories.accountId, actor.accountId),
    eq(memories.internal, false),
    teamIds.length ? or(eq(memories.userId, user.id), and(eq(memories.scope, 'team'), inArray(memories.teamId, teamIds))) : eq(memories.userId, user.id),
  )!;
}

async function visibleMemory(db: Db, actor: Actor, id: string): Promise<MemoryRow> {
  const [m] = await db
    .select()
    .from(memories)
    .where(and(eq(memories.id, id), await visibleFilter(db, actor)))
    .limit(1);
  if (!m) throw notFound('Memory');
  return m;
}

function checkTags(raw: string[] | undefined, fallback: string[]): string[] {
  if (raw === undefined) return fallback;
  const { tags, invalid } = normalizeTags(raw);
  if (invalid.length) throw badRequest(`tags: ${invalid.map((t) => JSON.stringify(t)).join(', ')} not accepted; ${ACCEPTED_TAGS_MESSAGE}`);
  if (tags.length === 0) return ['general'];
  return tags;
}

/** With scope team the team must be one the user is an active member of; it defaults to their active team. */
async function resolveTeam(db: Db, actor: Actor, scope: 'user' | 'team', team: string | null | undefined): Promise<string | null> {
  if (scope === 'user') return null;
  const user = requireUser(actor);
  const mine = await activeTeamIds(db, user.id);
  const teamId = team ?? mine[0];
  if (!teamId) throw badRequest('team: required with scope team (the user has no active team)');
  if (!mine.includes(teamId)) {
    const [exists] = await db.select({ id: teams.id }).from(teams).where(and(eq(teams.id, teamId), eq(teams.accountId, actor.accountId)));
    if (!exists) throw notFound('Team');
    throw forbidden('team: the user is not an active member of this team');
  }
  return teamId;
}

function checkDates(tags: string[], start: Date | null, end: Date | null) {
  if (tags.includes('date-memory') && !start) throw badRequest('startDate: required when tags include date-memory');
  if (start && end && end < start) throw badRequest('endDate: must not be before startDate');
}

const toDate = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : new Date(v));

export async function createMemory(db: Db, actor: Actor, input: z.infer<typeof CreateMemoryBody>) {
  const user = requireUser(actor);
  const tags = checkTags(input.tags, ['general']);
  const scope = input.scope ?? 'user';
  const teamId = await resolveTeam(db, actor, scope, input.team);
  const startDate = toDate(input.startDate) ?? null;
  const endDate = toDate(input.endDate) ?? null;
  checkDates(tags, startDate, endDate);
  const [m] = await db
    .insert(memories)
    .values({
      accountId: actor.accountId,
      userId: user.id,
      content: input.content,
      tags,
      scope,
      teamId,
      startDate,
      endDate,
      metadata: input.metadata ?? {},
      kind: input.kind ?? 'unstructured',
      resourceType: input.resourceType ?? null,
      data: input.data ?? null,
      pinned: input.pinned ?? false,
      visibility: input.visibility ?? 'all',
      // Saved by an assistant during a task run: the spec's `source: system`, authored by that task's assistant.
      source: actor.credential.kind === 'agent' ? 'system' : 'user',
      assistantId: actor.credential.kind === 'agent' ? await runAssistant(db, actor.credential.taskId, user.primaryAssistantId) : user.primaryAssistantId,
    })
    .returning();
  return { ok: true as const, memory: toPublicMemory(m) };
}

export async function getMemory(db: Db, actor: Actor, id: string) {
  return { ok: true as const, memory: toPublicMemory(await visibleMemory(db, actor, id)) };
}

async function authoredMemory(db: Db, actor: Actor, id: string) {
  const m = await visibleMemory(db, actor, id);
  if (m.userId !== requireUser(actor).id) throw forbidden('Only the author can change or delete this memory');
  return m;
}

export async function updateMemory(db: Db, actor: Actor, id: string, input: z.infer<typeof UpdateMemoryBody>) {
  const m = await authoredMemory(db, actor, id);
  const tags = checkTags(input.tags, m.tags);
  const scope = input.scope ?? m.scope;
  const placed = input.scope !== undefined || input.team !== undefined;
  const teamId = placed ? await resolveTeam(db, actor, scope, input.team ?? (scope === 'team' ? m.teamId : null)) : m.teamId;
  const startDate = toDate(input.startDate);
  const endDate = toDate(input.endDate);
  checkDates(tags, startDate === undefined ? m.startDate : startDate, endDate === undefined ? m.endDate : endDate);
  // Only what the request names is written: a body naming nothing leaves the row (and updatedAt) as it is.
  const set = changedFields({
    tags: input.tags !== undefined ? tags : undefined,
    scope: placed ? scope : undefined,
    teamId: placed ? teamId : undefined,
    startDate,
    endDate,
    content: input.content,
    metadata: input.metadata,
    kind: input.kind,
    resourceType: input.resourceType,
    data: input.data,
    pinned: input.pinned,
    visibility: input.visibility,
  });
  if (!set) return { ok: true as const, memory: toPublicMemory(m) };
  const [u] = await db.update(memories).set(set).where(eq(memories.id, m.id)).returning();
  return { ok: true as const, memory: toPublicMemory(u) };
}

export async function deleteMemory(db: Db, actor: Actor, id: string) {
  const m = await authoredMemory(db, actor, id);
  await db.delete(memories).where(eq(memories.id, m.id));
  return { ok: true as const, memory: { id: m.id, deleted: true as const, message: 'Memory deleted' } };
}


export async function listMemories(db: Db, actor: Actor, q: z.infer<typeof ListMemoriesQuery>) {
  const filters: SQL[] = [await visibleFilter(db, actor)];
  const anyTags: string[] = [];
  if (q.tags) anyTags.push(...q.tags.split(',').map((t) => t.trim()).filter(Boolean));
  if (q.contactEmail) anyTags.push(`contact:${q.contactEmail.trim().toLowerCase()}`);
  if (q.companyId) anyTags.push(`company:${q.companyId.trim()}`);
  if (anyTags.length) {
    // Any of the tags: jsonb ?| text[]
    filters.push(sql`${memories.tags} ?| array[${sql.join(anyTags.map((t) => sql`${t}`), sql`, `)}]::text[]`);
  }
  if (q.type) filters.push(q.type === 'structured' || q.type === 'unstructured' ? eq(memories.kind, q.type) : eq(memories.resourceType, q.type));
  if (q.search) filters.push(ilike(memories.content, containsPattern(q.search)));
  if (q.scope) filters.push(eq(memories.scope, q.scope));
  const where = and(...filters);
  const { limit, offset } = pageWindow(q);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(memories).where(where).orderBy(desc(memories.createdAt), desc(memories.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(memories).where(where),
  ]);
  return { ok: true as const, memories: rows.map((m) => toPublicMemory(m)), ...pageInfo(q, total) };
}

/** The assistant handling a task (its own, else the user's primary): who authored what a run saved. */
async function runAssistant(db: Db, taskId: string, fallback: string | null): Promise<string | null> {
  const [row] = await db.select({ assistantId: tasks.assistantId }).from(tasks).where(eq(tasks.id, taskId)).limit(1);
  return row?.assistantId ?? fallback;
}
