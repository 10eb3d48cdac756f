import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { idColumn, ts } from './columns';

/*
 * The audit log (spec 5, Audit events): who did what to which security-relevant setting, written
 * in the transaction that makes the change (server/audit/record.ts), so an event exists exactly
 * when its change committed. Kept STEWARD_AUDIT_RETENTION_DAYS (365) and swept; never holds a
 * secret (changes carry settings, not keys or tokens).
 */

export const auditActorTypes = ['user', 'api_key', 'certificate', 'scim', 'admin_cli', 'agent', 'system'] as const;
export type AuditActorType = (typeof auditActorTypes)[number];

export type AuditChanges = { before: Record<string, unknown> | null; after: Record<string, unknown> | null };

export const auditEvents = pgTable(
  'audit_events',
  {
    id: idColumn(),
    occurredAt: ts('occurred_at').notNull().defaultNow(),
    accountId: text('account_id').notNull(),
    organizationId: text('organization_id'),
    /** `<resource>.<verb>`: api_key.created, sign_in.failed, kill_switch.changed... */
    action: text('action').notNull(),
    actorType: text('actor_type', { enum: auditActorTypes }).notNull(),
    actorId: text('actor_id'),
    actorEmail: text('actor_email'),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    requestId: text('request_id'),
    changes: jsonb('changes').$type<AuditChanges>(),
    /** When it was handed to the webhooks (`audit.event`): null until then, the sweep emits it. */
    emittedAt: ts('emitted_at'),
  },
  (t) => [
    index('audit_events_account').on(t.accountId, t.occurredAt.desc(), t.id.desc()),
    index('audit_events_organization').on(t.organizationId, t.occurredAt.desc(), t.id.desc()).where(sql`${t.organizationId} IS NOT NULL`),
    index('audit_events_action').on(t.accountId, t.action, t.occurredAt.desc()),
    index('audit_events_actor').on(t.accountId, t.actorId, t.occurredAt.desc()),
    index('audit_events_target').on(t.accountId, t.targetId, t.occurredAt.desc()),
    index('audit_events_unemitted').on(t.occurredAt).where(sql`${t.emittedAt} IS NULL`),
    index('audit_events_occurred').on(t.occurredAt),
  ],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
