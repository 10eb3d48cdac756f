import { z } from 'zod';
import { PageQuery } from '@/server/http/pagination';
import { CreateWebhookBody, DeliveriesQuery, UpdateWebhookBody } from '@/server/webhooks/contracts';
import { resendDelivery } from '@/server/webhooks/resend';
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, testWebhook, updateWebhook } from '@/server/webhooks/service';
import { router } from '../init';
import { consoleChange, consoleProcedure } from './console-procedures';

const Webhook = z.object({ webhookId: z.string().min(1).max(64) });

/** Webhook endpoints and their delivery log (the /webhooks API's services), plus a resend of one delivery. */
export const consoleWebhooksRouter = router({
  list: consoleProcedure.input(PageQuery.prefault({})).query(({ ctx, input }) => listWebhooks(ctx.db, ctx.actor, input)),
  get: consoleProcedure.input(Webhook).query(({ ctx, input }) => getWebhook(ctx.db, ctx.actor, input.webhookId)),
  create: consoleChange.input(CreateWebhookBody).mutation(({ ctx, input }) => createWebhook(ctx.db, ctx.actor, input)),
  update: consoleChange.input(Webhook.extend({ patch: UpdateWebhookBody })).mutation(({ ctx, input }) => updateWebhook(ctx.db, ctx.actor, input.webhookId, input.patch)),
  delete: consoleChange.input(Webhook).mutation(({ ctx, input }) => deleteWebhook(ctx.db, ctx.actor, input.webhookId)),
  test: consoleChange.input(Webhook).mutation(({ ctx, input }) => testWebhook(ctx.db, ctx.actor, input.webhookId)),
  deliveries: consoleProcedure.input(Webhook.extend({ query: DeliveriesQuery.prefault({}) })).query(({ ctx, input }) => listDeliveries(ctx.db, ctx.actor, input.webhookId, input.query)),
  resend: consoleChange.input(Webhook.extend({ deliveryId: z.string().min(1).max(64) })).mutation(({ ctx, input }) => resendDelivery(ctx.db, ctx.actor, input.webhookId, input.deliveryId)),
});
