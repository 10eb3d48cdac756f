import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { taskRuns, tasks } from './tasks';
import { users } from './users';

/** Spec document 2, Workspace records: every handoff status; the first four are "open". */
export const handoffStatuses = [
  'pending',
  'starting',
  'ready',
  'active',
  'completed',
  'deferred',
  'declined',
  'closed',
  'expired',
  'failed',
] as const;
export type HandoffStatus = (typeof handoffStatuses)[number];
export const openHandoffStatuses = ['pending', 'starting', 'ready', 'active'] as const satisfies readonly HandoffStatus[];

export const handoffCloseReasons = ['completed', 'declined', 'deferred', 'expired', 'task_closed', 'superseded'] as const;
export type HandoffCloseReason = (typeof handoffCloseReasons)[number];

export const handoffActionTypes = ['login', 'mfa', 'payment', 'form_fill', 'other'] as const;
export type HandoffActionType = (typeof handoffActionTypes)[number];

export const handoffUrlSources = ['live', 'claimed'] as const;
export const controlOperators = ['user', 'agent', 'unknown'] as const;
export type ControlOperator = (typeof controlOperators)[number];

/**
 * A handoff: the assistant (or the user, with launch) asks the person to take the user's
 * browser for a moment (sign in, a one-time code, a payment). A task waits on its open one.
 */
export const handoffs = pgTable(
  'handoffs',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Null for a session the user opened with launch. */
    taskId: text('task_id').references(() => tasks.id, { onDelete: 'cascade' }),
    /** The run that asked for it (request_handoff); the outcome is told to a later run. */
    runId: text('run_id').references(() => taskRuns.id, { onDelete: 'set null' }),
    actionType: text('action_type', { enum: handoffActionTypes }).notNull(),
    prompt: text('prompt').notNull().default(''),
    targetUrl: text('target_url'),
    screenshotUrl: text('screenshot_url'),
    status: text('status', { enum: handoffStatuses }).notNull(),
    closeReason: text('close_reason', { enum: handoffCloseReasons }),
    urlSource: text('url_source', { enum: handoffUrlSources }).notNull().default('claimed'),
    expiresAt: ts('expires_at').notNull(),
    /** What the person said when deferring or resolving. */
    message: text('message'),
    deferredUntil: ts('deferred_until'),
    closedAt: ts('closed_at'),
    /** Set once a run of the task has been told how the handoff ended. */
    reportedAt: ts('reported_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('handoffs_user_open').on(t.accountId, t.userId, t.createdAt).where(sql`${t.closedAt} is null`),
    index('handoffs_task').on(t.taskId),
    check('handoffs_closed_at', sql`(${t.status} in ('pending','starting','ready','active')) = (${t.closedAt} is null)`),
  ],
);

/**
 * Who holds a user's browser. `generation` increases on every change of control, so a caller
 * that read it can be refused (409) when control changed meanwhile.
 */
export const workspaceControls = pgTable(
  'workspace_controls',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    generation: integer('generation').notNull().default(0),
    operator: text('operator', { enum: controlOperators }).notNull().default('agent'),
    handoffId: text('handoff_id').references(() => handoffs.id, { onDelete: 'set null' }),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.userId] })],
);

/**
 * Single-use live-view links. Only the SHA-256 of the token is kept, so a database dump opens
 * no session; a link is consumed when the live view connects with it.
 */
export const handoffSessionLinks = pgTable(
  'handoff_session_links',
  {
    id: idColumn(),
    handoffId: text('handoff_id')
      .notNull()
      .references(() => handoffs.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('handoff_session_links_token').on(t.tokenHash), index('handoff_session_links_handoff').on(t.handoffId)],
);

export type HandoffRow = typeof handoffs.$inferSelect;
