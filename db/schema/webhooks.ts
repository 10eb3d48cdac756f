import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/** Event types Steward delivers (spec 4, Outbound events); `webhook.test` only by POST /webhooks/{id}/test. */
export const webhookEventTypes = ['task.status_changed', 'cart.pending_approval', 'cart.executed', 'cart.failed', 'handoff.opened', 'chat.message', 'audit.event'] as const;
export const webhookStatuses = ['enabled', 'disabled'] as const;
export const webhookDeliveryStatuses = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

/**
 * An account's endpoint. The signing secret (Standard Webhooks `whsec_…`) is shown once at
 * creation and kept sealed with the master key: a database dump cannot sign as Steward.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description'),
    /** Event types delivered; empty means every type. */
    events: text('events').array().notNull().default([]),
    secretSealed: text('secret_sealed').notNull(),
    status: text('status', { enum: webhookStatuses }).notNull().default('enabled'),
    disabledReason: text('disabled_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_endpoints_account').on(t.accountId, t.createdAt)],
);

/**
 * One event for one endpoint: the transactional outbox row written with the change it reports,
 * then delivered (and retried) by the durable engine. `id` is the `webhook-id` receivers
 * deduplicate by; every attempt sends the same one.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The JSON body exactly as signed and sent: `{type, timestamp, data}`. */
    payload: jsonb('payload').$type<{ type: string; timestamp: string; data: Record<string, unknown> }>().notNull(),
    status: text('status', { enum: webhookDeliveryStatuses }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    /** When the engine took it up: a pending row without it after a minute is handed over again (sweep). */
    startedAt: ts('started_at'),
    nextAttemptAt: ts('next_attempt_at'),
    deliveredAt: ts('delivered_at'),
    createdAt: createdAt(),
  },
  (t) => [index('webhook_deliveries_endpoint').on(t.endpointId, t.createdAt), index('webhook_deliveries_unstarted').on(t.status, t.startedAt, t.createdAt)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
