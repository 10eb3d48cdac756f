import type { AuditActorType, AuditEventRow } from '@/db/schema';

/** An audit event as the API, the hosted app and the `audit.event` webhook show it (spec 5); absent fields are left out. */
export type AuditEvent = {
  id: string;
  occurredAt: string;
  action: string;
  actor: { type: AuditActorType; id: string | null; email?: string };
  target: { type: string; id: string | null };
  accountId: string;
  organizationId?: string;
  ip?: string;
  userAgent?: string;
  requestId?: string;
  changes?: { before: Record<string, unknown> | null; after: Record<string, unknown> | null };
};

export function presentAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    occurredAt: row.occurredAt.toISOString(),
    action: row.action,
    actor: { type: row.actorType, id: row.actorId, ...(row.actorEmail ? { email: row.actorEmail } : {}) },
    target: { type: row.targetType, id: row.targetId },
    accountId: row.accountId,
    ...(row.organizationId ? { organizationId: row.organizationId } : {}),
    ...(row.ip ? { ip: row.ip } : {}),
    ...(row.userAgent ? { userAgent: row.userAgent } : {}),
    ...(row.requestId ? { requestId: row.requestId } : {}),
    ...(row.changes ? { changes: row.changes } : {}),
  };
}
