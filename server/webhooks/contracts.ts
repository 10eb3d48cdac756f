import { z } from 'zod';
import { webhookEventTypes } from '@/db/schema/webhooks';
import { PageFields, PageQuery } from '@/server/http/pagination';

export const WebhookEventType = z.enum(webhookEventTypes);

export const CreateWebhookBody = z.object({
  url: z.string().min(1).max(2048).describe('Where events are POSTed: http or https, not an address inside the deployment (see STEWARD_WEBHOOK_ALLOW_PRIVATE)'),
  events: z.array(WebhookEventType).max(webhookEventTypes.length).optional().describe('Event types to deliver; omitted or empty: every type but audit.event, which goes only to endpoints that list it'),
  description: z.string().max(500).optional(),
});

export const UpdateWebhookBody = z
  .object({
    url: z.string().min(1).max(2048).optional(),
    events: z.array(WebhookEventType).max(webhookEventTypes.length).optional(),
    description: z.string().max(500).nullable().optional(),
    status: z.enum(['enabled', 'disabled']).optional().describe('`enabled` turns an endpoint disabled after persistent failure back on'),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Give at least one of url, events, description, status' });

export const WebhookParams = z.object({ webhookId: z.string().min(1).max(64) });

export const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()).describe('Delivered event types; empty: every type'),
  status: z.enum(['enabled', 'disabled']),
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const WebhookEnvelope = z.object({ ok: z.literal(true), webhook: Webhook });
export const CreatedWebhookEnvelope = WebhookEnvelope.extend({
  secret: z.string().describe('The Standard Webhooks signing secret (`whsec_…`): shown this once, never again'),
});
export const WebhookList = z.object({ ok: z.literal(true), webhooks: z.array(Webhook), ...PageFields });
export const DeletedWebhook = z.object({ ok: z.literal(true), webhook: z.object({ id: z.string(), deleted: z.literal(true) }) });

export const Delivery = z.object({
  id: z.string().describe('The `webhook-id` header of every attempt'),
  eventType: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  payload: z.object({ type: z.string(), timestamp: z.string(), data: z.record(z.string(), z.unknown()) }),
});
export const DeliveryList = z.object({ ok: z.literal(true), deliveries: z.array(Delivery), ...PageFields });
export const DeliveriesQuery = PageQuery.extend({ status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']).optional() });
export const TestDelivery = z.object({ ok: z.literal(true), delivery: Delivery });
