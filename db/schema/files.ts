import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { users } from './users';

export const driveFiles = pgTable(
  'drive_files',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    mimeType: text('mime_type'),
    /** Declared size while pending; the stored size once ready. Counts toward the quota either way. */
    size: bigint('size', { mode: 'number' }).notNull(),
    status: text('status', { enum: ['pending', 'ready'] }).notNull().default('pending'),
    folder: text('folder'),
    /** Where the bytes live in the configured store. */
    storageKey: text('storage_key').notNull(),
    confirmedAt: ts('confirmed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('drive_files_user').on(t.userId)],
);

/** Secrets the app generates for itself once and shares across instances (for example the URL signing key). */
export const appSecrets = pgTable('app_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});

export type DriveFileRow = typeof driveFiles.$inferSelect;
