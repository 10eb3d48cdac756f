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
  (t) => [
    index('memories_user_created').on(t.userId, t.createdAt),
    index('memories_team').on(t.teamId),
    index('memories_tags').using('gin', t.tags),
  ],
);

export type MemoryRow = typeof memories.$inferSelect;
