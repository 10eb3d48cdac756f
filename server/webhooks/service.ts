import { randomBytes } from 'node:crypto';
import { and, count, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { webhookDeliveries, webhookEndpoints } from '@/db/schema/webhooks';
import { isAccountWide, type Actor } from '@/server/access/actor';
import { AppError, forbidden, notFound } from '@/server/http/errors';
import { checkOutboundUrl } from '@/server/http/outbound-url';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { sealJson } from '@/server/secrets/sealed';
import type { CreateWebhookBody, DeliveriesQuery, UpdateWebhookBody } from './contracts';
import { ALLOW_PRIVATE, SECRET_PURPOSE } from './deliver';
import { handOver, newDeliveryId } from './emit';
import { presentDelivery, presentWebhook } from './present';
import { recordAudit } from '@/server/audit/record';

/** Endpoints belong to the account: only an account-wide credential manages them. */
function accountOf(actor: Actor): string {
  if (!isAccountWide(actor)) throw forbidden('Webhook endpoints are managed with an account-wide key without X-User-Email', 'account_key_required');
  return actor.accountId;
}

async function own(db: Db, actor: Actor, webhookId: string) {
  const accountId = accountOf(actor);
  const [row] = await db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, webhookId), eq(webhookEndpoints.accountId, accountId)));
  if (!row) throw notFound('Webhook');
  return row;
}

export async function createWebhook(db: Db, actor: Actor, input: z.infer<typeof CreateWebhookBody>) {
  const accountId = accountOf(actor);
  const url = await checkOutboundUrl(input.url, { field: 'url', allowVariable: ALLOW_PRIVATE });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const secretSealed = await sealJson(db, secret, SECRET_PURPOSE);
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(webhookEndpoints)
      .values({ accountId, url: url.href, description: input.description ?? null, events: [...new Set(input.events ?? [])], secretSealed })
      .returning();
    await recordAudit(tx, actor, 'webhook.created', { type: 'webhook', id: created.id }, { after: presentWebhook(created) });
    return created;
  });
  return { ok: true as const, webhook: presentWebhook(row), secret };
}

export async function listWebhooks(db: Db, actor: Actor, q: { page: number; perPage: number }) {
  const accountId = accountOf(actor);
  const where = eq(webhookEndpoints.accountId, accountId);
  const [rows, [{ n }]] = await Promise.all([
    db.select().from(webhookEndpoints).where(where).orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id)).limit(pageWindow(q).limit).offset(pageWindow(q).offset),
    db.select({ n: count() }).from(webhookEndpoints).where(where),
  ]);
  return { ok: true as const, webhooks: rows.map(presentWebhook), ...pageInfo(q, n) };
}

export async function getWebhook(db: Db, actor: Actor, webhookId: string) {
  return { ok: true as const, webhook: presentWebhook(await own(db, actor, webhookId)) };
}

export async function updateWebhook(db: Db, actor: Actor, webhookId: string, input: z.infer<typeof UpdateWebhookBody>) {
  const row = await own(db, actor, webhookId);
  const url = input.url !== undefined ? (await checkOutboundUrl(input.url, { field: 'url', allowVariable: ALLOW_PRIVATE })).href : row.url;
  const updated = await db.transaction(async (tx) => {
    const [changed] = await tx
      .update(webhookEndpoints)
      .set({
        url,
        events: input.events !== undefined ? [...new Set(input.events)] : row.events,
        description: input.description !== undefined ? input.description : row.description,
        status: input.status ?? row.status,
        // Turning an endpoint back on clears why it was turned off.
        disabledReason: input.status === 'enabled' ? null : input.status === 'disabled' ? 'Disabled by the account' : row.disabledReason,
      })
      .where(eq(webhookEndpoints.id, row.id))
      .returning();
    await recordAudit(tx, actor, 'webhook.updated', { type: 'webhook', id: row.id }, { before: presentWebhook(row), after: presentWebhook(changed) });
    return changed;
  });
  return { ok: true as const, webhook: presentWebhook(updated) };
}

export async function deleteWebhook(db: Db, actor: Actor, webhookId: string) {
  const row = await own(db, actor, webhookId);
  // Its deliveries go with it (cascade); a delivery in flight finds nothing and stops.
  await db.transaction(async (tx) => {
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, row.id));
    await recordAudit(tx, actor, 'webhook.deleted', { type: 'webhook', id: row.id }, { before: presentWebhook(row) });
  });
  return { ok: true as const, webhook: { id: row.id, deleted: true as const } };
}

export async function listDeliveries(db: Db, actor: Actor, webhookId: string, q: z.infer<typeof DeliveriesQuery>) {
  const row = await own(db, actor, webhookId);
  const where = and(eq(webhookDeliveries.endpointId, row.id), q.status ? eq(webhookDeliveries.status, q.status) : undefined);
  const [rows, [{ n }]] = await Promise.all([
    db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)).limit(pageWindow(q).limit).offset(pageWindow(q).offset),
    db.select({ n: count() }).from(webhookDeliveries).where(where),
  ]);
  return { ok: true as const, deliveries: rows.map(presentDelivery), ...pageInfo(q, n) };
}

/** A `webhook.test` event to this endpoint alone, delivered like every other event (signed, retried, logged). */
export async function testWebhook(db: Db, actor: Actor, webhookId: string) {
  const row = await own(db, actor, webhookId);
  if (row.status !== 'enabled') throw new AppError(409, 'webhook_disabled', 'The endpoint is disabled; PATCH status "enabled" first');
  const delivery = await db.transaction(async (tx) => {
    const [d] = await tx
      .insert(webhookDeliveries)
      .values({ id: newDeliveryId(), endpointId: row.id, accountId: row.accountId, eventType: 'webhook.test', payload: { type: 'webhook.test', timestamp: new Date().toISOString(), data: { webhookId: row.id } } })
      .returning();
    await handOver(tx, [d.id]);
    return d;
  });
  return { ok: true as const, delivery: presentDelivery(delivery) };
}
