import type { WebhookDeliveryRow, WebhookEndpointRow } from '@/db/schema/webhooks';

export const presentWebhook = (w: WebhookEndpointRow) => ({
  id: w.id,
  url: w.url,
  description: w.description,
  events: w.events,
  status: w.status,
  disabledReason: w.disabledReason,
  createdAt: w.createdAt.toISOString(),
  updatedAt: w.updatedAt.toISOString(),
});

export const presentDelivery = (d: WebhookDeliveryRow) => ({
  id: d.id,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  deliveredAt: d.deliveredAt?.toISOString() ?? null,
  createdAt: d.createdAt.toISOString(),
  payload: d.payload,
});
