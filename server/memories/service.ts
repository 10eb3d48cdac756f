import { storableJson, storableText, storableTextOrNull } from '@/db/storable';
import { and, eq, ilike, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import { containsPattern } from '@/server/http/like';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { changedFields } from '@/db/partial-update';
import { countedTotal, countedVersion, countWhere, readPage } from '@/db/queries/list-page';
import { activeMemberships } from '@/db/queries/memberships';
import { memories, memoryEmbeddingQueue, tasks, teams, type MemoryRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { badRequest, forbidden, notFound } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import type { CreateMemoryBody, ListMemoriesQuery, UpdateMemoryBody } from './contracts';
import { searchConfigFor } from './search-config';
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

/** The teams the user is an active member of (whose team-scoped memories they see), and those they coordinate (owner or admin). */
export type Teams = { ids: string[]; coordinated: string[] };

export async function activeTeams(db: Db, userId: string): Promise<Teams> {
  const rows = await activeMemberships(db, userId);
  return {
    ids: [...new Set(rows.map(({ m }) => m.teamId))].sort(),
    coordinated: rows.filter(({ m }) => m.role === 'owner' || m.role === 'admin').map(({ m }) => m.teamId),
  };
}

/**
 * Which of a team's team-scoped memories another member sees, by the memory's `visibility`: `all`
 * every active member, `coordinators` the team's owner and admins, `author_only` nobody but its
 * author (spec 2, Memory). The author always sees their own.
 */
function sharedWith(userId: string, teams: Teams, teamId?: string): SQL {
  const coordinated = teamId ? teams.coordinated.filter((t) => t === teamId) : teams.coordinated;
  return or(
    eq(memories.userId, userId),
    eq(memories.visibility, 'all'),
    coordinated.length ? and(eq(memories.visibility, 'coordinators'), inArray(memories.teamId, coordinated)) : undefined,
  )!;
}

/** The team memories of one team a member does not see (few: counted through memories_team_restricted). */
function hiddenIn(userId: string, teams: Teams, teamId: string): SQL {
  return and(
    eq(memories.scope, 'team'),
    eq(memories.teamId, teamId),
    ne(memories.visibility, 'all'),
    ne(memories.userId, userId),
    teams.coordinated.includes(teamId) ? ne(memories.visibility, 'coordinators') : undefined,
  )!;
}

/** A user sees their own memories and the team-scoped memories of their active teams shared with them; nothing else. */
export async function visibleFilter(db: Db, actor: Actor, known?: Teams): Promise<SQL> {
  const user = requireUser(actor);
  const teams = known ?? (await activeTeams(db, user.id));
  return and(
    eq(memories.accountId, actor.accountId),
    eq(memories.internal, false),
    teams.ids.length
      ? or(eq(memories.userId, user.id), and(eq(memories.scope, 'team'), inArray(memories.teamId, teams.ids), sharedWith(user.id, teams)))
      : eq(memories.userId, user.id),
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
  const mine = (await activeTeams(db, user.id)).ids;
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
  const [m] = await db.transaction(async (tx) => {
    const inserted = await tx
      .insert(memories)
      .values({
      accountId: actor.accountId,
      userId: user.id,
      // A memory may hold what a run read (a tool's output, a message): stored as Postgres can hold it (db/storable.ts).
      content: storableTextOrNull(input.content),
      tags,
      scope,
      teamId,
      startDate,
      endDate,
      metadata: storableJson(input.metadata ?? {}),
      kind: input.kind ?? 'unstructured',
      resourceType: input.resourceType ?? null,
      data: storableJson(input.data ?? null),
      pinned: input.pinned ?? false,
      visibility: input.visibility ?? 'all',
      // Saved by an assistant during a task run: the spec's `source: system`, authored by that task's assistant.
      source: actor.credential.kind === 'agent' ? 'system' : 'user',
      assistantId: actor.credential.kind === 'agent' ? await runAssistant(db, actor.credential.taskId, user.primaryAssistantId) : user.primaryAssistantId,
      // Indexed in the author's language (search-config.ts); queries are read in the reader's.
      searchConfig: searchConfigFor(user.locale),
    })
      .returning();
    await queueEmbedding(tx, inserted.map((r) => r.id));
    return inserted;
  });
  return { ok: true as const, memory: toPublicMemory(m) };
}

export async function getMemory(db: Db, actor: Actor, id: string) {
  return { ok: true as const, memory: toPublicMemory(await visibleMemory(db, actor, id)) };
}

/** Only a memory's author changes or deletes it (spec 2: "only the author can update"); a teammate reads a team memory. */
export const canChangeMemory = (m: { user: string }, userId: string) => m.user === userId;

async function authoredMemory(db: Db, actor: Actor, id: string) {
  const m = await visibleMemory(db, actor, id);
  if (!canChangeMemory({ user: m.userId }, requireUser(actor).id)) throw forbidden('Only the author can change or delete this memory');
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
    content: input.content == null ? input.content : storableText(input.content),
    metadata: storableJson(input.metadata),
    kind: input.kind,
    resourceType: input.resourceType,
    data: storableJson(input.data),
    pinned: input.pinned,
    visibility: input.visibility,
  });
  if (!set) return { ok: true as const, memory: toPublicMemory(m) };
  // What a vector is computed from (the text, the tags, where it is shared) changed: computed again in the background.
  const restated = ['content', 'data', 'tags', 'scope', 'teamId'].some((k) => k in set);
  const [u] = await db.transaction(async (tx) => {
    const updated = await tx.update(memories).set(set).where(eq(memories.id, m.id)).returning();
    if (restated) await queueEmbedding(tx, [m.id]);
    return updated;
  });
  return { ok: true as const, memory: toPublicMemory(u) };
}

export async function deleteMemory(db: Db, actor: Actor, id: string) {
  const m = await authoredMemory(db, actor, id);
  await db.delete(memories).where(eq(memories.id, m.id));
  return { ok: true as const, memory: { id: m.id, deleted: true as const, message: 'Memory deleted' } };
}


/** The filter of one list request, which `tags`, `contactEmail` and `companyId` all feed (any of the tags). */
function listFilters(q: z.infer<typeof ListMemoriesQuery>) {
  const anyTags = [...new Set([
    ...(q.tags ? q.tags.split(',').map((t) => t.trim()).filter(Boolean) : []),
    ...(q.contactEmail ? [`contact:${q.contactEmail.trim().toLowerCase()}`] : []),
    ...(q.companyId ? [`company:${q.companyId.trim()}`] : []),
  ])];
  const byKind = q.type === 'structured' || q.type === 'unstructured';
  const filters: SQL[] = [];
  // Any of the tags: jsonb ?| text[]
  if (anyTags.length) filters.push(sql`${memories.tags} ?| array[${sql.join(anyTags.map((t) => sql`${t}`), sql`, `)}]::text[]`);
  if (q.type) filters.push(byKind ? eq(memories.kind, q.type as 'structured' | 'unstructured') : eq(memories.resourceType, q.type));
  if (q.search) filters.push(ilike(memories.content, containsPattern(q.search)));
  if (q.scope) filters.push(eq(memories.scope, q.scope));
  // The one facet list_counts keeps for this filter ('' for none), or null when it takes a count.
  const facets = [
    ...(anyTags.length ? [anyTags.length === 1 ? `tag:${anyTags[0]}` : null] : []),
    ...(q.type ? [byKind ? `kind:${q.type}` : `type:${q.type}`] : []),
    ...(q.scope ? [`scope:${q.scope}`] : []),
    ...(q.search ? [null] : []),
  ];
  const facet = facets.length === 0 ? '' : facets.length === 1 ? facets[0] : null;
  return { filters, facet, key: [anyTags.sort(), q.type ?? null, q.search ?? null, q.scope ?? null] };
}

/**
 * The parts of the visible list: the user's own, and each active team's team memories. A team's
 * part holds the user's own team memories too (the union drops the repeats): excluding them would
 * make the index walk past every one of them when the user wrote most of the team's. With a
 * counted filter, a part whose counter says it has no match is not read at all (a one-time test),
 * so an index never walks a whole part looking for a tag it does not hold.
 */
function memoryParts(account: string, userId: string, teams: Teams, scope: string | undefined, filters: SQL[], facet: string | null): SQL[] {
  const listed = and(eq(memories.accountId, account), eq(memories.internal, false));
  const holds = (owner: string) => (facet ? [sql`${countedTotal('memories', facet, [owner])} > 0`] : []);
  const own = and(listed, eq(memories.userId, userId), ...filters, ...holds(`u:${account}:${userId}`))!;
  // Team memories are all scope team: a scope=user list needs none of their parts.
  const teamIds = scope === 'user' ? [] : teams.ids;
  return [
    own,
    ...teamIds.map((t) => and(listed, eq(memories.scope, 'team'), eq(memories.teamId, t), sharedWith(userId, teams, t), ...filters, ...holds(`t:${account}:${t}`))!),
  ];
}

/**
 * The user's memories and their active teams' team memories, newest first, in one statement: one
 * part for the user and one per team (each read through its index), their union paged. `total`
 * comes from list_counts (own + teams' − the user's team memories, counted in both) unless the
 * filter needs a count; a search reads its matches once (trigram index) and counts them as it goes.
 */
export async function listMemories(db: Db, actor: Actor, q: z.infer<typeof ListMemoriesQuery>) {
  const user = requireUser(actor);
  const account = actor.accountId;
  const teams = await activeTeams(db, user.id);
  const teamIds = teams.ids;
  const { filters, facet, key } = listFilters(q);
  const visible = await visibleFilter(db, actor, teams);
  // The counters count every team memory; those not shared with this member are taken off again.
  const hidden = (scope: string | undefined) =>
    scope === 'user' ? [] : teamIds.map((t) => countWhere(memories, and(eq(memories.accountId, account), eq(memories.internal, false), hiddenIn(user.id, teams, t), ...filters)));
  const plus = [`u:${account}:${user.id}`, ...teamIds.map((t) => `t:${account}:${t}`)];
  const minus = teamIds.map((t) => `ut:${account}:${user.id}:${t}`);
  const list = { table: memories, version: countedVersion('memories', plus), key: JSON.stringify(['memories', account, user.id, teamIds, teams.coordinated, ...key]) };
  const counted = (total: SQL) => {
    const off = hidden(q.scope);
    return off.length ? sql`(${total} - ${sql.join(off, sql` - `)})` : total;
  };
  const { rows, total } = await readPage(
    db,
    q.search
      ? { ...list, parts: [and(visible, ...filters)!], total: 'matches' }
      : {
          ...list,
          parts: memoryParts(account, user.id, teams, q.scope, filters, facet),
          total: facet !== null ? counted(countedTotal('memories', facet, plus, minus)) : countWhere(memories, and(visible, ...filters)),
        },
    pageWindow(q),
  );
  return { ok: true as const, memories: rows.map((m) => toPublicMemory(m)), ...pageInfo(q, total ?? 0) };
}

/** The assistant handling a task (its own, else the user's primary): who authored what a run saved. */
async function runAssistant(db: Db, taskId: string, fallback: string | null): Promise<string | null> {
  const [row] = await db.select({ assistantId: tasks.assistantId }).from(tasks).where(eq(tasks.id, taskId)).limit(1);
  return row?.assistantId ?? fallback;
}

/** Queues memories for a vector (memory_embedding_queue): drained in the background whenever an embeddings model is configured. */
async function queueEmbedding(tx: Pick<Db, 'insert'>, ids: string[]) {
  if (!ids.length) return;
  await tx
    .insert(memoryEmbeddingQueue)
    .values(ids.map((memoryId) => ({ memoryId })))
    .onConflictDoUpdate({ target: memoryEmbeddingQueue.memoryId, set: { createdAt: sql`now()`, attempts: 0, notBefore: null } });
}
