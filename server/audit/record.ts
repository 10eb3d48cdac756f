import { storableJson, storableTextOrNull } from '@/db/storable';
import { auditEvents, type AuditActorType, type AuditChanges, type AuditEventRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import type { Tx } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import type { AuditAction } from './actions';
import { presentAuditEvent, type AuditEvent } from './present';
import { requestOf, type RequestMeta } from './request-meta';

/** Who acted, as an audit event names them (spec 5). */
export type AuditActor = { type: AuditActorType; id: string | null; email?: string | null };
export type AuditTarget = { type: string; id: string | null };

export type AuditDetails = {
  /** Needed when `by` is not an Actor (the admin CLI, the system, SCIM, a sign-in). */
  accountId?: string;
  organizationId?: string | null;
  /** Settings before and after (never secrets: `withoutSecrets` drops what looks like one). */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Where the change came from, when the caller object carries none (sign-in, SAML). */
  request?: RequestMeta | null;
  /** The caller object the kernel noted the request for (a SCIM caller), when `by` is not it. */
  caller?: object | null;
};

/** An Actor as the audit log names it: the credential that acted, and the person it acted as. */
export function auditActorOf(actor: Actor): AuditActor {
  const c = actor.credential;
  const email = actor.user?.email ?? null;
  if (c.kind === 'api_key') return { type: 'api_key', id: c.keyId, email };
  if (c.kind === 'certificate') return { type: 'certificate', id: c.kid, email: email ?? c.email };
  if (c.kind === 'agent') return { type: 'agent', id: c.runId, email };
  // A console member is a user of the account acting in the console (spec 6: the member is the actor).
  if (c.kind === 'console') return { type: 'user', id: c.userId, email: c.email };
  return { type: 'user', id: actor.user?.id ?? null, email };
}

export const SYSTEM: AuditActor = { type: 'system', id: null };
export const ADMIN_CLI: AuditActor = { type: 'admin_cli', id: null };

/**
 * Hands a recorded event to the webhooks (`audit.event`) in the same transaction. The entry floor
 * registers it (server/compose/engine-handovers.ts); a process without one (the admin CLI) leaves the event for the
 * audit sweep, which emits what was not emitted.
 */
export type AuditSink = (tx: Tx, event: AuditEvent) => Promise<void>;
let sink: AuditSink | null = null;
export function registerAuditSink(fn: AuditSink | null): void {
  sink = fn;
}
export const auditSink = () => sink;

const SECRET_NAME = /(secret|password|passphrase|token|private|apikey|api_key|keyhash|sealed|credential)/i;
const SECRET_VALUE = /^(ak_live_|sk_live_|whsec_|scim_|-----BEGIN [A-Z ]*PRIVATE KEY)/;

/** A settings object with anything that looks like a secret replaced: what an audit event may show. */
export function withoutSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? '[redacted]' : value.length > 2000 ? `${value.slice(0, 2000)}…` : value;
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => withoutSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_NAME.test(k) ? '[redacted]' : withoutSecrets(v, depth + 1);
  return out;
}

const isActor = (by: Actor | AuditActor): by is Actor => 'credential' in by;

let lastStamp = 0;
/**
 * When an event happened, strictly later than the one recorded before it in this process: the log
 * reads newest first by this moment, and several events of one transaction (a join and the
 * membership it adds) fall in the same millisecond, so equal stamps would list them in either order.
 */
function stamp(): Date {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return new Date(lastStamp);
}

/**
 * Records one security-relevant action in `tx`, the transaction that makes the change: the event
 * exists exactly when the change committed. Services call it in one line.
 */
export async function recordAudit(tx: Tx, by: Actor | AuditActor, action: AuditAction, target: AuditTarget, details: AuditDetails = {}): Promise<AuditEventRow> {
  const actor = isActor(by) ? auditActorOf(by) : by;
  const accountId = details.accountId ?? (isActor(by) ? by.accountId : null);
  if (!accountId) throw new Error(`audit ${action}: no account to record it for`);
  const meta = details.request ?? requestOf(isActor(by) ? by : null) ?? requestOf(details.caller);
  const changes: AuditChanges | null =
    details.before !== undefined || details.after !== undefined
      ? { before: (withoutSecrets(details.before ?? null) as AuditChanges['before']) ?? null, after: (withoutSecrets(details.after ?? null) as AuditChanges['after']) ?? null }
      : null;
  const row = {
    id: newId(),
    occurredAt: stamp(),
    accountId,
    organizationId: details.organizationId ?? (isActor(by) && by.level === 'organization' ? by.organizationId : null),
    action,
    actorType: actor.type,
    actorId: actor.id,
    actorEmail: storableTextOrNull(actor.email),
    targetType: target.type,
    targetId: target.id,
    ip: meta?.ip ?? null,
    userAgent: meta?.userAgent ?? null,
    requestId: meta?.requestId ?? null,
    // Outside text in the details (a refused SAML response's reason, a name someone chose) is stored as Postgres can hold it (db/storable.ts).
    changes: storableJson(changes),
    emittedAt: sink ? new Date() : null,
  } satisfies AuditEventRow;
  await tx.insert(auditEvents).values(row);
  if (sink) await sink(tx, presentAuditEvent(row));
  return row;
}
