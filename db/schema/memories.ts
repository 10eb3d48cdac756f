import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

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
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // The list reads newest first per author and per team (one ordered branch each, keyset on
  // created_at, id); tags and content searches go through GIN (content by trigrams, pg_trgm).
  (t) => [
    index('memories_user_list').on(t.userId, t.createdAt, t.id),
    index('memories_team_list').on(t.teamId, t.createdAt, t.id),
    // Team memories not every member sees (author_only, coordinators): few, counted apart from the team's total.
    index('memories_team_restricted').on(t.teamId, t.userId).where(sql`${t.scope} = 'team' AND ${t.visibility} <> 'all'`),
    index('memories_tags').using('gin', t.tags),
    index('memories_content_trgm').using('gin', t.content.op('gin_trgm_ops')),
  ],
);

export type MemoryRow = typeof memories.$inferSelect;
