import { jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { updatedAt } from './columns';

/** Policy set at one tier (account, organization or team). Resolution walks account → organization → team. */
export const policySettings = pgTable(
  'policy_settings',
  {
    level: text('level', { enum: ['account', 'organization', 'team'] }).notNull(),
    ownerId: text('owner_id').notNull(),
    accountId: text('account_id').notNull(),
    capabilities: jsonb('capabilities').$type<Record<string, unknown>>().notNull().default({}),
    /** action type → {mode, timeBoxedWindowMin, locked?} */
    matrix: jsonb('matrix').$type<Record<string, { mode: string | null; timeBoxedWindowMin: number | null; locked?: boolean }> | null>(),
    preset: text('preset'),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.level, t.ownerId] })],
);

export type PolicyRow = typeof policySettings.$inferSelect;
