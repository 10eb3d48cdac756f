import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import type { AuditEventRow } from '@/db/schema';
import type { AuditSink } from './record';
import { presentAuditEvent } from './present';

/** How long audit events are kept (STEWARD_AUDIT_RETENTION_DAYS, default 365). */
export function auditRetentionDays(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.STEWARD_AUDIT_RETENTION_DAYS);
  return Number.isInteger(n) && n > 0 ? n : 365;
}

const BATCH = 500;

/**
 * Events recorded where no webhook sink was registered (the admin CLI) are handed to the webhooks
 * now, each once: taken under SKIP LOCKED with its emission in one transaction, so two sweeps
 * never emit the same event.
 */
export async function emitPending(db: Db, emit: AuditSink): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.execute<Record<string, unknown>>(sql`
      SELECT * FROM audit_events WHERE emitted_at IS NULL AND occurred_at < now() - interval '5 seconds'
      ORDER BY occurred_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`);
    for (const raw of rows) await emit(tx, presentAuditEvent(fromRaw(raw)));
    if (rows.length) await tx.execute(sql`UPDATE audit_events SET emitted_at = now() WHERE id = ANY(${sql.param(rows.map((r) => r.id as string))}::text[])`);
    return rows.length;
  });
}

/** Events past retention are dropped, a batch at a time. */
export async function dropExpired(db: Db, days = auditRetentionDays()): Promise<number> {
  let removed = 0;
  for (;;) {
    const r = await db.execute(sql`DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE occurred_at < now() - make_interval(days => ${days}) LIMIT 5000)`);
    removed += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < 5000) return removed;
  }
}

/** A row read with raw SQL, in the table's own shape. */
function fromRaw(r: Record<string, unknown>): AuditEventRow {
  const at = (v: unknown) => (v instanceof Date ? v : v ? new Date(String(v)) : null);
  return {
    id: String(r.id),
    occurredAt: at(r.occurred_at)!,
    accountId: String(r.account_id),
    organizationId: (r.organization_id as string | null) ?? null,
    action: String(r.action),
    actorType: r.actor_type as AuditEventRow['actorType'],
    actorId: (r.actor_id as string | null) ?? null,
    actorEmail: (r.actor_email as string | null) ?? null,
    targetType: String(r.target_type),
    targetId: (r.target_id as string | null) ?? null,
    ip: (r.ip as string | null) ?? null,
    userAgent: (r.user_agent as string | null) ?? null,
    requestId: (r.request_id as string | null) ?? null,
    changes: (r.changes as AuditEventRow['changes']) ?? null,
    emittedAt: at(r.emitted_at),
  };
}
