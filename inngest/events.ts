import { eventType } from 'inngest';
import { z } from 'zod';

/**
 * Every event Steward sends or is triggered by, with the Zod schema of its data. Functions
 * trigger on these objects and senders build events with `.create(data)`, so a name or a
 * payload cannot drift between the two sides.
 */
export const events = {
  /** Record a heartbeat now (the cron does it every 10 minutes). */
  heartbeatRequested: eventType('steward/heartbeat', { schema: z.object({}).loose() }),
  /** Look up unverified organization domains again now (the cron does it hourly). */
  domainsRecheckRequested: eventType('steward/domains.recheck', { schema: z.object({}).loose() }),
  /** Wake the tasks whose alarm or scheduled time is due now (the cron does it every minute). */
  tasksWakeupsDue: eventType('steward/tasks.wakeups-due', { schema: z.object({}).loose() }),
  /**
   * A run of the user ended: the oldest of that user's runs waiting for a run slot
   * (STEWARD_USER_MAX_CONCURRENT_RUNS) asks again. Addressed to one run, so a slot wakes one
   * waiting run, not the whole queue.
   */
  taskRunSlotGranted: eventType('steward/task.run-slot-granted', {
    // `grantFor`, not `runId`: the run's own trigger carries a runId, and a wait must never match its trigger.
    schema: z.object({ grantFor: z.string().min(1), userId: z.string().min(1), accountId: z.string().min(1) }),
  }),
  /** A task's alarm or scheduled start was set (server/tasks/timers.ts): task-timer wakes it at `at`. */
  taskTimerSet: eventType('steward/task.timer-set', {
    schema: z.object({ taskId: z.string().min(1), accountId: z.string().min(1), at: z.iso.datetime({ offset: true }), transactionId: z.string().min(1) }),
  }),
  /** A notice of what needs the user was recorded (server/notices): notice-deliver sends it once that transaction has committed. */
  noticeRequested: eventType('steward/notice.requested', {
    schema: z.object({ noticeId: z.string().min(1), accountId: z.string().min(1), transactionId: z.string().min(1) }),
  }),
  /** A task run was queued and its transaction committed: the task-run function runs it (server/compose/engine-handovers.ts sends it). */
  taskRunRequested: eventType('steward/task.run-requested', {
    schema: z.object({ taskId: z.string().min(1), runId: z.string().min(1), accountId: z.string().min(1) }),
  }),
  /**
   * A cart was released (auto at the run's end, approved, or its time box ended with execute):
   * cart-execute sends it. Sent inside the releasing transaction (transactionId): the function
   * acts once that transaction has committed, and never after a rollback.
   */
  cartExecuteRequested: eventType('steward/cart.execute-requested', {
    schema: z.object({ cartId: z.string().min(1), accountId: z.string().min(1), transactionId: z.string().min(1).nullable() }),
  }),
  /** A cart became time-boxed: cart-timebox waits until expiresAt, then executes or cancels it (same transaction rule). */
  cartTimeBoxStarted: eventType('steward/cart.time-box-started', {
    schema: z.object({ cartId: z.string().min(1), accountId: z.string().min(1), expiresAt: z.iso.datetime({ offset: true }), transactionId: z.string().min(1) }),
  }),
  /** A cart waits for the person's approval: cart-notify mails them (same transaction rule). */
  cartPendingApproval: eventType('steward/cart.pending-approval', {
    schema: z.object({ cartId: z.string().min(1), accountId: z.string().min(1), transactionId: z.string().min(1) }),
  }),
  /** The person approved or cancelled a time-boxed cart: its timer stops (cancelOn). */
  cartDecided: eventType('steward/cart.decided', { schema: z.object({ cartId: z.string().min(1), accountId: z.string().min(1) }) }),
  /** End every time box that is due and restart releases whose execution never began now (the cron does it every minute). */
  cartsTimeBoxesDue: eventType('steward/carts.time-boxes-due', { schema: z.object({}).loose() }),
  /** Expire every open handoff whose expiresAt has come now (the cron does it every minute). */
  handoffsExpiryDue: eventType('steward/handoffs.expiry-due', { schema: z.object({}).loose() }),
  /** A webhook delivery was recorded and its transaction committed: webhook-deliver sends it, retrying with backoff. */
  webhookDeliveryRequested: eventType('steward/webhook.delivery-requested', { schema: z.object({ deliveryId: z.string().min(1) }) }),
  /** Hand over deliveries whose handover was lost (the cron does it every minute). */
  webhooksSweepDue: eventType('steward/webhooks.sweep-due', { schema: z.object({}).loose() }),
  /** Send the task runs and chat turns whose handover to the engine was lost (the cron does it every minute; a starting process asks too). */
  engineHandoffsSweepDue: eventType('steward/engine-handoffs.sweep-due', { schema: z.object({}).loose() }),
  /** Hand audit events to the webhooks and drop those past retention (the cron does it every minute). */
  auditSweepDue: eventType('steward/audit.sweep-due', { schema: z.object({}).loose() }),
  /** A chat turn was recorded and its transaction committed: chat-turn runs it (server/compose/engine-wakeups.ts sends it). */
  chatTurnRequested: eventType('steward/chat.turn-requested', {
    schema: z.object({ turnId: z.string().min(1), chatId: z.string().min(1), accountId: z.string().min(1) }),
  }),
  /** Compute the vectors of queued memories now (the cron does it every minute; a no-op without STEWARD_EMBEDDINGS_MODEL). */
  memoriesEmbedDue: eventType('steward/memories.embed-due', { schema: z.object({}).loose() }),
  /** Extract the text of the user's new files for recall now (the cron does it every minute). */
  fileTextsDue: eventType('steward/files.texts-due', { schema: z.object({}).loose() }),
  /** Fire the workflow triggers that are due now (the cron does it every minute); `now` lets tests move the clock. */
  workflowsDue: eventType('steward/workflows.due', { schema: z.object({ now: z.iso.datetime({ offset: true }).optional() }).loose() }),
} as const;

export type StewardEventName = (typeof events)[keyof typeof events]['name'];
