import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema/webhooks';
import { logger } from '@/server/logger';

export type WebhookEventType =
  | 'task.status_changed'
  | 'cart.pending_approval'
  | 'cart.executed'
  | 'cart.failed'
  | 'handoff.opened'
  | 'chat.message'
  /** A credit budget's spend reached one of its alert thresholds, once per threshold and period (server/budgets/alerts.ts). */
  | 'budget.threshold_reached'
  /** A security-relevant action was recorded in the audit log (server/audit/record.ts): the event itself. */
  | 'audit.event'
  | 'webhook.test';

/** Types delivered only to endpoints that list them in `events` (an empty filter does not include them). */
const OPT_IN = new Set<WebhookEventType>(['audit.event']);

/** A delivery's id, and so its `webhook-id`: `msg_` and 24 random hex characters. */
export const newDeliveryId = () => `msg_${randomBytes(12).toString('hex')}`;

type Sender = (handover: { deliveryIds: string[]; transactionId: string }) => void;
let sender: Sender | null = null;

/**
 * The entry floor (server/compose/engine-handovers.ts) registers how deliveries reach the durable engine. Without
 * one (API tests without an executor) rows stay pending, as a task run stays queued.
 */
export function registerWebhookSender(fn: Sender | null): Sender | null {
  const previous = sender;
  sender = fn;
  return previous;
}

/**
 * Records an event for every enabled endpoint of the account that wants its type, in the
 * caller's transaction: the event exists exactly when the change it reports committed (a
 * transactional outbox). The engine is handed the rows with the transaction's id and starts
 * delivering once that transaction has committed; should the handover be lost (a crash right
 * after the commit), the sweep hands over rows nobody took up.
 */
export async function emitWebhookEvent(tx: Tx, accountId: string, type: Exclude<WebhookEventType, 'webhook.test'>, data: Record<string, unknown>, at = new Date()): Promise<void> {
  // The audit stream goes only to endpoints that name it: an endpoint for every type gets the product's events, not every audit record.
  const wanted = OPT_IN.has(type) ? sql`${type} = ANY(${webhookEndpoints.events})` : sql`(cardinality(${webhookEndpoints.events}) = 0 OR ${type} = ANY(${webhookEndpoints.events}))`;
  // The common case, an account without endpoints, costs this one indexed read.
  const targets = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.status, 'enabled'), wanted));
  if (!targets.length) return;
  const payload = { type, timestamp: at.toISOString(), data };
  const rows = targets.map((t) => ({ id: newDeliveryId(), endpointId: t.id, accountId, eventType: type, payload }));
  await tx.insert(webhookDeliveries).values(rows);
  await handOver(tx, rows.map((r) => r.id));
}

export async function handOver(tx: Tx, deliveryIds: string[]): Promise<void> {
  if (!sender || !deliveryIds.length) return;
  const { rows } = await tx.execute<{ xid: string }>(sql`SELECT pg_current_xact_id()::text AS xid`);
  try {
    sender({ deliveryIds, transactionId: rows[0].xid });
  } catch (err) {
    // The sweep delivers them: an event must never fail the change it reports.
    logger.warn({ err }, 'webhooks: handover failed; the sweep will deliver');
  }
}
