import { index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { ts } from './columns';
import { users } from './users';

/**
 * The Steward processes of a deployment that run workspaces (spec document 6, Many machines):
 * each process started with STEWARD_NODE_URL writes its row when it starts (a new id every
 * start) and refreshes `seen_at` while it runs. A row not seen for a while, or one whose URL a
 * later-started process took, is a process that is gone.
 */
export const stewardNodes = pgTable(
  'steward_nodes',
  {
    id: text('id').primaryKey(),
    /** STEWARD_NODE_URL: where the other processes reach this one. */
    url: text('url').notNull(),
    startedAt: ts('started_at').notNull(),
    seenAt: ts('seen_at').notNull(),
  },
  (t) => [index('steward_nodes_url').on(t.url)],
);

/**
 * Which process holds a user's workspace browser now: the one that started it. Another process
 * forwards that user's browser work there; when the holder is gone, the next process that needs
 * the browser takes the row over (one statement, so two never both do) and starts it itself.
 * `node_id` has no foreign key: a holder whose node row was removed is simply a gone holder.
 */
export const workspaceHolders = pgTable(
  'workspace_holders',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    nodeId: text('node_id').notNull(),
    since: ts('since').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.userId] }), index('workspace_holders_node').on(t.nodeId)],
);

export type StewardNodeRow = typeof stewardNodes.$inferSelect;
