import { sql } from 'drizzle-orm';
import { type AnyPgColumn, bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/** Keys of the tenant prompt API (`sk_live_`), one tenant (account) each. Only the hash is kept. */
export const serviceKeys = pgTable(
  'service_keys',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    status: text('status', { enum: ['active', 'revoked'] }).notNull().default('active'),
    revokedAt: ts('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('service_keys_hash').on(t.keyHash)],
);

type Json = Record<string, unknown>;

/** The draft of a prompt; published versions are snapshots in prompt_versions. */
export const prompts = pgTable(
  'prompts',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    promptName: text('prompt_name').notNull(),
    category: text('category').notNull(),
    description: text('description').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    multiStep: boolean('multi_step').notNull().default(false),
    systemChunks: jsonb('system_chunks').$type<Json[]>().notNull().default([]),
    userChunks: jsonb('user_chunks').$type<Json[]>().notNull().default([]),
    toolDefs: jsonb('tool_defs').$type<Json[]>().notNull().default([]),
    variables: jsonb('variables').$type<Json[]>().notNull().default([]),
    scenarios: jsonb('scenarios').$type<unknown[]>().notNull().default([]),
    models: jsonb('models').$type<Json[]>().notNull().default([]),
    modelSampling: boolean('model_sampling').notNull().default(false),
    skillset: jsonb('skillset').$type<unknown[]>().notNull().default([]),
    allowedActions: jsonb('allowed_actions').$type<unknown[]>().notNull().default([]),
    metadata: jsonb('metadata').$type<Json>().notNull().default({}),
    /** Draft revision: the number in the etag `v<revision>_<token>`. */
    revision: integer('revision').notNull().default(1),
    etag: text('etag').notNull(),
    publishedEtag: text('published_etag'),
    publishedVersion: integer('published_version'),
    hasUnpublishedChanges: boolean('has_unpublished_changes').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('prompts_account_name').on(t.accountId, t.promptName), index('prompts_account_created').on(t.accountId, t.createdAt)],
);

export const promptVersions = pgTable(
  'prompt_versions',
  {
    id: idColumn(),
    promptId: text('prompt_id')
      .notNull()
      .references(() => prompts.id, { onDelete: 'cascade' }),
    versionNumber: integer('version_number').notNull(),
    etag: text('etag').notNull(),
    /** The draft's content at publish time. */
    content: jsonb('content').$type<Json>().notNull(),
    /** `{blockName, content, description}` of each block the prompt referenced at publish time. */
    blocks: jsonb('blocks').$type<Array<{ blockName: string; content: string; description: string }>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('prompt_versions_number').on(t.promptId, t.versionNumber)],
);

export const promptBlocks = pgTable(
  'prompt_blocks',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    blockName: text('block_name').notNull(),
    content: text('content').notNull(),
    description: text('description').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('prompt_blocks_account_name').on(t.accountId, t.blockName)],
);

/** What the traces list's `search` looks in (prompt name, model), as one text the trigram index holds. */
export const traceSearchText = (t: Record<'promptName' | 'modelConfig', AnyPgColumn>) => sql`(${t.promptName} || ' ' || coalesce(${t.modelConfig}->>'model', ''))`;

export const traces = pgTable(
  'traces',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    promptName: text('prompt_name').notNull(),
    status: text('status').notNull(),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    totalTokens: integer('total_tokens').notNull().default(0),
    cost: doublePrecision('cost').notNull().default(0),
    costCurrency: text('cost_currency').notNull().default('USD'),
    durationMs: doublePrecision('duration_ms').notNull().default(0),
    modelConfig: jsonb('model_config').$type<Json>().notNull().default({}),
    messages: jsonb('messages').$type<Json[]>().notNull().default([]),
    output: jsonb('output').$type<Json | null>(),
    tools: jsonb('tools').$type<Json[]>().notNull().default([]),
    toolChoice: text('tool_choice'),
    metadata: jsonb('metadata').$type<Json>().notNull().default({}),
    timestamp: bigint('timestamp', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
  },
  // A tenant's traces newest first (keyset on created_at, id); search through trigrams (pg_trgm).
  (t) => [index('traces_account_list').on(t.accountId, t.createdAt, t.id), index('traces_search_trgm').using('gin', sql`${traceSearchText(t)} gin_trgm_ops`)],
);

export type PromptRow = typeof prompts.$inferSelect;
export type PromptBlockRow = typeof promptBlocks.$inferSelect;
export type TraceRow = typeof traces.$inferSelect;
