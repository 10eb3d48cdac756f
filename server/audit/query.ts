import { and, desc, eq, gte, lt, or, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { auditEvents } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { forbidden, invalidFields } from '@/server/http/errors';
import type { AuditEventsQuery } from './contracts';
import { presentAuditEvent } from './present';

/** Whose events a caller may read: the account (an account-wide credential) or one organization (its admin or its key). */
export type AuditScope = { accountId: string; organizationId: string | null };

export function auditScopeOf(actor: Actor): AuditScope {
  if (isAccountWide(actor)) return { accountId: actor.accountId, organizationId: null };
  const org = administeredOrganization(actor);
  if (org) return { accountId: actor.accountId, organizationId: org };
  throw forbidden('The audit log is for account credentials and organization admins');
}

/** A page boundary: the last event's time and id, opaque to clients. */
const encodeCursor = (at: Date, id: string) => Buffer.from(`${at.getTime()}.${id}`).toString('base64url');
function decodeCursor(cursor: string): { at: Date; id: string } {
  const [ms, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  const at = new Date(Number(ms));
  if (!id || !/^\d+$/.test(ms ?? '') || Number.isNaN(at.getTime())) throw invalidFields([{ field: 'cursor', problem: 'must be the cursor of a previous page' }]);
  return { at, id };
}

/** Newest first, `limit` at a time; `cursor` continues after the previous page. */
export async function listAuditEvents(db: Db, scope: AuditScope, q: z.infer<typeof AuditEventsQuery>) {
  const where: SQL[] = [eq(auditEvents.accountId, scope.accountId)];
  if (scope.organizationId) where.push(eq(auditEvents.organizationId, scope.organizationId));
  if (q.action) where.push(eq(auditEvents.action, q.action));
  if (q.actorId) where.push(eq(auditEvents.actorId, q.actorId));
  if (q.targetId) where.push(eq(auditEvents.targetId, q.targetId));
  if (q.since) where.push(gte(auditEvents.occurredAt, new Date(q.since)));
  if (q.until) where.push(lt(auditEvents.occurredAt, new Date(q.until)));
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    where.push(or(lt(auditEvents.occurredAt, c.at), and(eq(auditEvents.occurredAt, c.at), lt(auditEvents.id, c.id)))!);
  }
  const rows = await db
    .select()
    .from(auditEvents)
    .where(and(...where))
    .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const hasMore = rows.length > q.limit;
  const last = page.at(-1);
  return { ok: true as const, events: page.map(presentAuditEvent), hasMore, cursor: hasMore && last ? encodeCursor(last.occurredAt, last.id) : null };
}

/** The hosted app's audit page: one organization's log, for its admins only (404 like any page of an organization one cannot see). */
export function organizationAuditScope(actor: Actor, orgId: string): AuditScope {
  if (administeredOrganization(actor) !== orgId) throw forbidden('Only this organization’s admins can read its audit log');
  return { accountId: actor.accountId, organizationId: orgId };
}
