import { bigint, doublePrecision, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { idColumn, ts, updatedAt } from './columns';
import { users } from './users';

/**
 * One row per user whose workspace browser has ever run: what the profile endpoint reports
 * across restarts (spec document 2, Profile). Its absence is "profile: null".
 */
export const workspaceUsage = pgTable(
  'workspace_usage',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    firstStartedAt: ts('first_started_at').notNull(),
    lastStartedAt: ts('last_started_at').notNull(),
    lastActiveAt: ts('last_active_at').notNull(),
    /** Seconds the browser has been running, summed over every session. */
    activeSeconds: integer('active_seconds').notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.userId] })],
);

/**
 * Measured usage of a running workspace, at most one per 5 minutes per user, kept 30 days
 * (spec document 2, Snapshot). Nullable numbers: a measurement that could not be read.
 */
export const workspaceSnapshots = pgTable(
  'workspace_snapshots',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    takenAt: ts('taken_at').notNull(),
    memoryUsedBytes: bigint('memory_used_bytes', { mode: 'number' }),
    memoryTotalBytes: bigint('memory_total_bytes', { mode: 'number' }),
    diskUsedBytes: bigint('disk_used_bytes', { mode: 'number' }),
    diskQuotaBytes: bigint('disk_quota_bytes', { mode: 'number' }),
    cpuLoadAvg: doublePrecision('cpu_load_avg'),
    uptimeSeconds: integer('uptime_seconds'),
  },
  (t) => [index('workspace_snapshots_user_time').on(t.accountId, t.userId, t.takenAt), index('workspace_snapshots_time').on(t.takenAt)],
);

export type WorkspaceSnapshotRow = typeof workspaceSnapshots.$inferSelect;
