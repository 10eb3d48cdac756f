import { doublePrecision, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, updatedAt } from './columns';
import { users } from './users';

export const autonomyModes = ['auto', 'time-boxed', 'manual'] as const;
export type AutonomyMode = (typeof autonomyModes)[number];
export const timeBoxedExpiries = ['execute', 'cancel'] as const;
export type TimeBoxedExpiry = (typeof timeBoxedExpiries)[number];

/** One of the user's own cells; a null or missing field inherits (team, organization, account, platform default). */
export type OwnCell = {
  mode?: AutonomyMode | null;
  timeBoxedWindowMin?: number | null;
  timeBoxedExpiry?: TimeBoxedExpiry | null;
  undoDelaySec?: number | null;
};

/**
 * A user's own supervision matrix: one row per user, so a PATCH that merges cells locks
 * exactly one row and reset is one write. `updatedAt` is the read's `matrixUpdatedAt`.
 */
export const autonomySettings = pgTable('autonomy_settings', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  accountId: text('account_id')
    .notNull()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  /** action type → the user's own cell */
  matrix: jsonb('matrix').$type<Record<string, OwnCell>>().notNull().default({}),
  updatedAt: updatedAt(),
});

/** A recipient exception: a mode for messages to one address or one domain, for the listed action types. */
export const autonomyExceptions = pgTable(
  'autonomy_exceptions',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    matchKind: text('match_kind', { enum: ['domain', 'address'] }).notNull(),
    /** Lower-cased: a bare domain, an email address or an E.164 phone. */
    matchValue: text('match_value').notNull(),
    mode: text('mode', { enum: autonomyModes }).notNull(),
    /** Minutes, fractions allowed (0.5 is half a minute). */
    timeBoxedWindowMin: doublePrecision('time_boxed_window_min'),
    timeBoxedExpiry: text('time_boxed_expiry', { enum: timeBoxedExpiries }),
    undoDelaySec: integer('undo_delay_sec'),
    appliesTo: jsonb('applies_to').$type<string[]>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('autonomy_exceptions_user').on(t.userId, t.createdAt)],
);

export type AutonomySettingsRow = typeof autonomySettings.$inferSelect;
export type AutonomyExceptionRow = typeof autonomyExceptions.$inferSelect;
