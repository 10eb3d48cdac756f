import { sql } from 'drizzle-orm';
import { boolean, customType, index, integer, jsonb, pgTable, real, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/** A PostgreSQL text search document (read only through SQL: ranking happens in the database). */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
/** A text search configuration's name (`english`, `german`, `simple`…). */
export const regconfig = customType<{ data: string }>({ dataType: () => 'regconfig' });

export const memories = pgTable(
  'memories',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The author and owner. */
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['unstructured', 'structured'] }).notNull().default('unstructured'),
    resourceType: text('resource_type'),
    tags: jsonb('tags').$type<string[]>().notNull(),
    content: text('content'),
    data: jsonb('data').$type<Record<string, unknown> | null>(),
    source: text('source', { enum: ['system', 'user'] }).notNull().default('user'),
    scope: text('scope', { enum: ['user', 'team'] }).notNull().default('user'),
    visibility: text('visibility', { enum: ['author_only', 'coordinators', 'all'] }).notNull().default('all'),
    assistantId: text('assistant_id'),
    teamId: text('team_id'),
    startDate: ts('start_date'),
    endDate: ts('end_date'),
    pinned: boolean('pinned').notNull().default(false),
    /** Notes the agent keeps for its own operation: never returned by the API. */
    internal: boolean('internal').notNull().default(false),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    /**
     * The language the memory is indexed in: its author's locale when it was written
     * (server/memories/search-config.ts), `simple` (no stemming) for a language PostgreSQL has no
     * configuration for.
     */
    searchConfig: regconfig('search_config').notNull().default(sql`'simple'::regconfig`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // The list reads newest first per author and per team (one ordered branch each, keyset on
  // created_at, id); tags and content searches go through GIN (content by trigrams, pg_trgm).
  //
  // Ranked search and recall (server/memories/ranking.ts) match the generated column `search`,
  // a tsvector: the content weighs most (A), a structured memory's data next (B: values and
  // keys), the tags least (C), each in the memory's search_config. It and its index
  // memories_search are made in SQL (db/migrations/0067_memory_search.sql) and not declared here,
  // so the rows every list reads do not carry the document: only ranking.ts names it. The index
  // holds the owner beside the document (btree_gin), so one user's matches of a term are read
  // without the rest of the account's; memories_owner_trgm does the same for trigrams. Not the
  // team: a GIN searchable by team alone would be taken for the team part of plain lists, which
  // read newest first through memories_team_list; a team's matches are found through that.
  (t) => [
    index('memories_user_list').on(t.userId, t.createdAt, t.id),
    index('memories_team_list').on(t.teamId, t.createdAt, t.id),
    // Team memories not every member sees (author_only, coordinators): few, counted apart from the team's total.
    index('memories_team_restricted').on(t.teamId, t.userId).where(sql`${t.scope} = 'team' AND ${t.visibility} <> 'all'`),
    index('memories_tags').using('gin', t.tags),
    // Substring searches (GET /memories?search=, names in GET /memories/search) by trigrams, the
    // owner beside them as for `search` (this replaced memories_content_trgm: content alone).
    index('memories_owner_trgm').using('gin', t.userId, t.content.op('gin_trgm_ops')),
    // Pinned memories join every run's context: few, read on each model call without walking the rest.
    index('memories_pinned').on(t.userId, t.teamId).where(sql`${t.pinned}`),
  ],
);

export type MemoryRow = typeof memories.$inferSelect;

/**
 * A memory's vector from the configured embeddings model (STEWARD_EMBEDDINGS_MODEL), written in
 * the background (inngest/functions/memory-embeddings.ts). Kept as a plain `real[]` (unit length)
 * so every PostgreSQL holds it; `buckets` are its locality-sensitive hash keys (random
 * hyperplanes, server/memories/vector-buckets.ts): nearest neighbours are looked for among the
 * memories sharing a bucket with the query, through GIN, then ranked by exact cosine.
 * `sourceUpdatedAt` is the memory's updatedAt the vector was computed from.
 */
export const memoryEmbeddings = pgTable(
  'memory_embeddings',
  {
    memoryId: text('memory_id')
      .primaryKey()
      .references(() => memories.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    userId: text('user_id').notNull(),
    teamId: text('team_id'),
    model: text('model').notNull(),
    vector: real('vector').array().notNull(),
    buckets: integer('buckets').array().notNull(),
    sourceUpdatedAt: ts('source_updated_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('memory_embeddings_buckets').using('gin', t.userId, t.teamId, t.buckets), index('memory_embeddings_model').on(t.model)],
);

/**
 * Memories whose vector is missing or stale: every write through the memories service queues
 * its memory (in the same statement's transaction), and the embeddings function drains the queue
 * whenever a model is configured. A deployment without one keeps the queue (one row a memory)
 * so switching embeddings on later embeds everything written before.
 */
export const memoryEmbeddingQueue = pgTable('memory_embedding_queue', {
  memoryId: text('memory_id')
    .primaryKey()
    .references(() => memories.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
  /** Failed attempts so far: a memory the endpoint keeps refusing is tried less often, then left. */
  attempts: integer('attempts').notNull().default(0),
  notBefore: ts('not_before'),
});
