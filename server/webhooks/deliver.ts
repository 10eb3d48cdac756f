import { and, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { Db } from '@/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema/webhooks';
import { postOutbound } from '@/server/http/outbound-request';
import { openJson } from '@/server/secrets/sealed';
import { attemptTimeoutMs, nextDelayMs } from './schedule';

export const ALLOW_PRIVATE = 'STEWARD_WEBHOOK_ALLOW_PRIVATE';
export const SECRET_PURPOSE = 'webhook-secret';

export type AttemptResult = { done: true; status: 'succeeded' | 'failed' | 'cancelled' } | { done: false; retryInMs: number };

/**
 * One delivery attempt: sign the stored payload (Standard Webhooks: `webhook-id` is the
 * delivery's id on every attempt, `webhook-timestamp` this attempt's time) and POST it. A 2xx is
 * success; anything else (3xx included: redirects are not followed) is a failure retried on the
 * schedule until the window ends, when the delivery fails and its endpoint is disabled.
 */
export async function attemptDelivery(db: Db, deliveryId: string, now = new Date()): Promise<AttemptResult> {
  const [row] = await db
    .select({ d: webhookDeliveries, e: webhookEndpoints })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.id, deliveryId));
  // Deleted with its endpoint, or settled by an earlier attempt whose result was recorded.
  if (!row) return { done: true, status: 'cancelled' };
  const { d, e } = row;
  if (d.status !== 'pending') return { done: true, status: d.status };
  if (e.status !== 'enabled') {
    await settle(db, deliveryId, { status: 'cancelled', lastError: 'the endpoint is disabled' });
    return { done: true, status: 'cancelled' };
  }
  const secret = await openJson<string>(db, e.secretSealed, SECRET_PURPOSE);
  const body = JSON.stringify(d.payload);
  const signature = new Webhook(secret).sign(d.id, now, body);
  const headers = { 'webhook-id': d.id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature };
  const answer = await postOutbound(new URL(e.url), headers, body, { allowVariable: ALLOW_PRIVATE, timeoutMs: attemptTimeoutMs() });
  const attempts = d.attempts + 1;
  const statusCode = answer.status;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    await settle(db, deliveryId, { status: 'succeeded', attempts, lastStatusCode: statusCode, lastError: null, deliveredAt: now, nextAttemptAt: null });
    return { done: true, status: 'succeeded' };
  }
  const lastError = statusCode === null ? answer.error : `HTTP ${statusCode}`;
  const retryInMs = nextDelayMs(attempts, d.createdAt, now);
  if (retryInMs === null) {
    await settle(db, deliveryId, { status: 'failed', attempts, lastStatusCode: statusCode, lastError, nextAttemptAt: null });
    await db
      .update(webhookEndpoints)
      .set({ status: 'disabled', disabledReason: `Deliveries kept failing for the whole retry window (last: ${lastError}); PATCH status "enabled" to resume` })
      .where(and(eq(webhookEndpoints.id, e.id), eq(webhookEndpoints.status, 'enabled')));
    return { done: true, status: 'failed' };
  }
  await settle(db, deliveryId, { attempts, lastStatusCode: statusCode, lastError, nextAttemptAt: new Date(now.getTime() + retryInMs) });
  return { done: false, retryInMs };
}

type Settle = Partial<Pick<typeof webhookDeliveries.$inferInsert, 'status' | 'attempts' | 'lastStatusCode' | 'lastError' | 'deliveredAt' | 'nextAttemptAt'>>;

/** Only a pending row changes: a concurrent attempt that settled it first wins. */
const settle = (db: Db, id: string, set: Settle) =>
  db.update(webhookDeliveries).set(set).where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'pending')));

/** The engine took the delivery up: the sweep leaves it alone from now on. */
export const markStarted = (db: Db, id: string, now = new Date()) =>
  db.update(webhookDeliveries).set({ startedAt: now }).where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'pending')));
