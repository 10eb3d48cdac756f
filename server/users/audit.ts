import type { Tx } from '@/db/client';
import type { UserRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { recordAudit, type AuditActor, type AuditDetails } from '@/server/audit/record';

/** Fields of a user an administrator (or an IdP) changes that the audit log names, by value. */
const SHOWN = ['name', 'firstName', 'lastName', 'timezone', 'locale', 'externalId', 'primaryAssistantId', 'avatarUrl'] as const;

/**
 * Audits a change an administrator, a key or an IdP made to a user (issue 46): a status change is
 * `user.status_changed` (suspension and reactivation stand out in the log), any other field
 * `user.updated` with the fields before and after; the organization and its role are
 * `member.*` events (recorded by their own services). Nothing changed, nothing recorded.
 */
export async function auditUserUpdate(tx: Tx, by: Actor | AuditActor, before: UserRow, after: UserRow, details: AuditDetails = {}) {
  const org = { accountId: after.accountId, organizationId: after.organizationId ?? before.organizationId, ...details };
  if (before.status !== after.status) {
    await recordAudit(tx, by, 'user.status_changed', { type: 'user', id: after.id }, { ...org, before: { status: before.status }, after: { status: after.status } });
  }
  const changed = SHOWN.filter((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null));
  const metadataChanged = JSON.stringify(before.metadata ?? {}) !== JSON.stringify(after.metadata ?? {});
  if (changed.length || metadataChanged) {
    const pick = (u: UserRow) => Object.fromEntries([...changed.map((k) => [k, u[k] ?? null]), ...(metadataChanged ? [['metadata', u.metadata ?? {}]] : [])]);
    await recordAudit(tx, by, 'user.updated', { type: 'user', id: after.id }, { ...org, before: pick(before), after: pick(after) });
  }
}
