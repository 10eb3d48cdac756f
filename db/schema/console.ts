import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, updatedAt } from './columns';
import { users } from './users';

/**
 * Console roles (spec 6, The console): `viewer` reads only; `developer` changes the account's
 * settings; `owner` also adds and removes console members and changes their roles.
 */
export const consoleRoles = ['owner', 'developer', 'viewer'] as const;
export type ConsoleRole = (typeof consoleRoles)[number];

/**
 * Who may open /console for an account: a user of that account (they sign in to the hosted app as
 * everyone does, by email link or their organization's SSO) with a console role. Made by the admin
 * CLI's `add-console-member` or by a console owner; the user row stays when the membership goes.
 */
export const consoleMembers = pgTable(
  'console_members',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: consoleRoles }).notNull().default('developer'),
    /** Who added them: `admin_cli`, or the user id of the console owner who did. */
    addedBy: text('added_by').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('console_members_account_user').on(t.accountId, t.userId), index('console_members_user').on(t.userId)],
);

export type ConsoleMemberRow = typeof consoleMembers.$inferSelect;
