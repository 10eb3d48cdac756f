import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { autonomyModes, timeBoxedExpiries } from './autonomy';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { taskRuns, tasks, type TaintSource } from './tasks';
import { users } from './users';

/** Every cart status of spec document 2 ("Approval (cart) statuses"); which move reaches which is server/approvals/cart-transitions.ts. */
export const cartStatuses = [
  'open',
  'submitted',
  'pending_approval',
  'time_boxed',
  'approved',
  'executing',
  'executed',
  'cancelled',
  'rejected',
  'failed',
] as const;
export type CartStatus = (typeof cartStatuses)[number];

/** The dispatch types the staging tools create (spec document 4, Tools); `skill_action` is an installed skill's acting tool; `call`: place_call (spec 5). */
export const dispatchTypes = ['email', 'message', 'calendar_event', 'skill_action', 'call'] as const;
export type DispatchType = (typeof dispatchTypes)[number];

/** Delivery of one dispatch: the spec's four states, plus `failed` (could not be sent, with the reason). */
export const dispatchDeliveryStates = ['staged', 'held', 'provider_accepted', 'unknown', 'failed', 'undone'] as const;

export type DispatchFile = { filename: string; mimeType: string; size: number; fileId: string };

/** Why a dispatch waits for a person whatever the autonomy matrix says (spec 5, Taint and held dispatches). */
export type HeldBecause = { kind: 'untrusted_input'; sources: TaintSource[] };

/**
 * Exactly what the person is shown of one dispatch, and so what is sent: the content of one
 * immutable version. contentHash (server/approvals/cart-hash.ts) covers these fields.
 */
export type DispatchContent = {
  type: DispatchType;
  platform: string;
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string | null;
  body: string | null;
  description: string | null;
  payload: Record<string, unknown> | null;
  files: DispatchFile[];
  validUntil: string | null;
  evergreen: boolean;
};

/**
 * A cart: the outbound actions one task run staged, released as the owner's autonomy settings
 * say (immediately, after a time box, or on approval). One `open` cart per run collects them.
 */
export const carts = pgTable(
  'carts',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    /** The run that staged it. */
    runId: text('run_id')
      .notNull()
      .references(() => taskRuns.id, { onDelete: 'cascade' }),
    /** The task's owner: the only person who sees and approves the cart. */
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The assistant that staged it (its name is shown; not a foreign key, as on tasks). */
    assistantId: text('assistant_id').notNull(),
    status: text('status', { enum: cartStatuses }).notNull().default('open'),
    /** Decided when the cart is submitted: the strictest mode over its dispatches. */
    resolvedApprovalMode: text('resolved_approval_mode', { enum: autonomyModes }),
    timeBoxedExpiresAt: ts('time_boxed_expires_at'),
    timeBoxedExpiry: text('time_boxed_expiry', { enum: timeBoxedExpiries }),
    /** Seconds an irreversible dispatch waits after release (the longest over the dispatches). */
    undoDelaySec: integer('undo_delay_sec'),
    /** SHA-256 of the canonical JSON of the shown content of the current versions. */
    contentHash: text('content_hash').notNull(),
    /** Why it was cancelled, rejected or discarded (the person's words, or the system's). */
    reason: text('reason'),
    resolvedAt: ts('resolved_at'),
    /** Who approved, cancelled or rejected it (null when the system did: a time box, mark done). */
    resolvedByUserId: text('resolved_by_user_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // The run's one open cart: staging adds to it, concurrent first stagings create it once.
    uniqueIndex('carts_run_open').on(t.runId).where(sql`${t.status} = 'open'`),
    // GET /portal/carts: one user's carts awaiting them, newest first.
    // Ascending, read backwards for ORDER BY ... DESC (Drizzle's .desc() is DESC NULLS LAST, which a plain DESC order cannot use).
    index('carts_user_status_created').on(t.userId, t.status, t.createdAt, t.id),
    index('carts_task').on(t.taskId, t.createdAt),
    // A time-boxed cart always knows when its window ends and what happens then.
    check(
      'carts_time_boxed_needs_window',
      sql`${t.status} <> 'time_boxed' OR (${t.timeBoxedExpiresAt} IS NOT NULL AND ${t.timeBoxedExpiry} IS NOT NULL)`,
    ),
  ],
);

export type CartRow = typeof carts.$inferSelect;

/**
 * One staged action of a cart. `index` is its place in the cart, used in paths, and never
 * reused: a removed dispatch keeps its row (removedAt) so the indexes of the others stay put.
 * Its content lives in immutable versions; currentVersionId names the one shown and sent.
 */
export const cartDispatches = pgTable(
  'cart_dispatches',
  {
    id: idColumn(),
    cartId: text('cart_id')
      .notNull()
      .references(() => carts.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    index: integer('index').notNull(),
    type: text('type', { enum: dispatchTypes }).notNull(),
    platform: text('platform').notNull(),
    /** The autonomy matrix's action type that decides how it is released. */
    actionType: text('action_type').notNull(),
    /** True once the person edited it: the text is theirs and is sent exactly as written. */
    editedByUser: boolean('edited_by_user').notNull().default(false),
    /** Set in the transaction that creates the dispatch, right after its first version. */
    currentVersionId: text('current_version_id'),
    deliveryState: text('delivery_state', { enum: dispatchDeliveryStates }).notNull().default('staged'),
    /** Filled by execution: the provider's id of what was sent (an email's Message-ID), and why it failed. */
    providerMessageId: text('provider_message_id'),
    failureReason: text('failure_reason'),
    /** Until when a released irreversible dispatch is held (undo possible), and when it ran. */
    holdUntil: ts('hold_until'),
    executedAt: ts('executed_at'),
    removedAt: ts('removed_at'),
    /** Set when the cart is submitted and this dispatch is held for a person because its run was tainted. */
    heldBecause: jsonb('held_because').$type<HeldBecause>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
    // Inbound replies find the mail they answer by its Message-ID (server/messaging/inbound-mail.ts).
  (t) => [uniqueIndex('cart_dispatches_cart_index').on(t.cartId, t.index), index('cart_dispatches_provider_message_id').on(t.providerMessageId)],
);

export type CartDispatchRow = typeof cartDispatches.$inferSelect;

/**
 * Every content a dispatch ever had: staging writes the first, each edit by the person the
 * next. Rows are never updated, so the version an approval's hash named is the one executed.
 */
export const cartDispatchVersions = pgTable(
  'cart_dispatch_versions',
  {
    id: idColumn(),
    dispatchId: text('dispatch_id')
      .notNull()
      .references(() => cartDispatches.id, { onDelete: 'cascade' }),
    cartId: text('cart_id').notNull(),
    accountId: text('account_id').notNull(),
    /** 1 for what the assistant staged, then one more per edit. */
    seq: integer('seq').notNull(),
    content: jsonb('content').$type<DispatchContent>().notNull(),
    /** The person whose edit this is; null for the assistant's staged content. */
    editedByUserId: text('edited_by_user_id'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('cart_dispatch_versions_seq').on(t.dispatchId, t.seq), index('cart_dispatch_versions_cart').on(t.cartId)],
);

export type CartDispatchVersionRow = typeof cartDispatchVersions.$inferSelect;
