import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema/webhooks';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { recordAudit } from '@/server/audit/record';
import { AppError, forbidden, notFound } from '@/server/http/errors';
import { handOver, newDeliveryId } from './emit';
import { presentDelivery } from './present';

/**
 * Sends a settled delivery's event again (the console's "Resend"): a new delivery with the same
 * payload, so it is signed, retried and logged like any other and its retry window starts now.
 * It has its own `webhook-id`: a resend is asked for on purpose, so a receiver that deduplicates
 * by id takes it. A delivery still pending is 409 (it is being sent); a disabled endpoint is 409
 * (turn it on first); another account's delivery 404.
 */
export async function resendDelivery(db: Db, actor: Actor, webhookId: string, deliveryId: string) {
  if (!isAccountWide(actor)) throw forbidden('Webhook endpoints are managed with an account-wide key without X-User-Email', 'account_key_required');
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ d: webhookDeliveries, e: webhookEndpoints })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, webhookId), eq(webhookEndpoints.accountId, actor.accountId)));
    if (!row) throw notFound('Delivery');
    if (row.e.status !== 'enabled') throw new AppError(409, 'webhook_disabled', 'The endpoint is disabled; turn it on first');
    if (row.d.status === 'pending') throw new AppError(409, 'delivery_pending', 'The delivery is still being sent');
    const [copy] = await tx
      .insert(webhookDeliveries)
      .values({ id: newDeliveryId(), endpointId: row.e.id, accountId: row.e.accountId, eventType: row.d.eventType, payload: row.d.payload })
      .returning();
    await recordAudit(tx, actor, 'webhook_delivery.resent', { type: 'webhook_delivery', id: copy.id }, { after: { webhookId: row.e.id, resentFrom: row.d.id, eventType: row.d.eventType } });
    await handOver(tx, [copy.id]);
    return { ok: true as const, delivery: presentDelivery(copy) };
  });
}
