import type { z } from 'zod';
import type { Db } from '@/db/client';
import type { AuditEventsQuery } from '@/server/audit/contracts';
import type { AuditEvent } from '@/server/audit/present';
import { listAuditEvents } from '@/server/audit/query';
import { assertOperates, type AccountOperator } from '@/server/accounts/operator';

/** The most events one export holds: the newest ones, with `truncated` saying more matched. */
export const EXPORT_MAX_EVENTS = 5_000;

export type AuditFilters = Omit<z.infer<typeof AuditEventsQuery>, 'limit' | 'cursor'>;

/** The account's events that match the filters, newest first, read page by page through the audit log's own query (the API's). */
export async function exportAuditEvents(db: Db, accountId: string, by: AccountOperator, filters: AuditFilters) {
  assertOperates(by, accountId);
  const events: AuditEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listAuditEvents(db, { accountId, organizationId: null }, { ...filters, limit: 100, cursor });
    events.push(...page.events);
    if (!page.hasMore || !page.cursor) return { events, truncated: false };
    if (events.length >= EXPORT_MAX_EVENTS) return { events: events.slice(0, EXPORT_MAX_EVENTS), truncated: true };
    cursor = page.cursor;
  }
}

const COLUMNS = ['occurredAt', 'action', 'actorType', 'actorId', 'actorEmail', 'targetType', 'targetId', 'organizationId', 'ip', 'userAgent', 'requestId', 'changes'] as const;

/**
 * One CSV field (RFC 4180 quoting). A value a spreadsheet would run as a formula (= + - @, tab,
 * carriage return first) gets a leading apostrophe: event fields hold text people chose.
 */
function field(value: string | null | undefined): string {
  let v = value ?? '';
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

export function auditCsv(events: AuditEvent[]): string {
  const lines = [COLUMNS.join(',')];
  for (const e of events) {
    lines.push(
      [
        e.occurredAt,
        e.action,
        e.actor.type,
        e.actor.id,
        e.actor.email,
        e.target.type,
        e.target.id,
        e.organizationId,
        e.ip,
        e.userAgent,
        e.requestId,
        e.changes ? JSON.stringify({ before: e.changes.before, after: e.changes.after }) : '',
      ]
        .map(field)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
