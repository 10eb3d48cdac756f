import { sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { modelTiers } from './agent';
import { createdAt, idColumn, updatedAt } from './columns';

/**
 * A model-tier segment (spec document 2, Model tiers): a named set of organizations, teams or
 * users with its own chat and task defaults. It decides the tier of chats and tasks the agent
 * creates itself, before the organization and account defaults (server/policy/segments.ts).
 * Members are kept as id lists: segments are few per account and read whole.
 */
export const modelTierSegments = pgTable(
  'model_tier_segments',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** null: this segment says nothing for that kind, and resolution goes on. */
    chatModelTier: text('chat_model_tier', { enum: modelTiers }),
    taskModelTier: text('task_model_tier', { enum: modelTiers }),
    organizationIds: text('organization_ids').array().notNull().default(sql`'{}'::text[]`),
    teamIds: text('team_ids').array().notNull().default(sql`'{}'::text[]`),
    userIds: text('user_ids').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('model_tier_segments_account_name').on(t.accountId, t.name), index('model_tier_segments_account_created').on(t.accountId, t.createdAt, t.id)],
);

export type ModelTierSegmentRow = typeof modelTierSegments.$inferSelect;

/** The account's own default tiers (the console setting of spec document 2): the last default before `medium`. */
export const accountModelTiers = pgTable('account_model_tiers', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  chatModelTier: text('chat_model_tier', { enum: modelTiers }),
  taskModelTier: text('task_model_tier', { enum: modelTiers }),
  updatedAt: updatedAt(),
});
