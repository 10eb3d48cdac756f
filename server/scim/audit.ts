import type { Tx } from '@/db/client';
import type { AuditAction } from '@/server/audit/actions';
import { recordAudit, type AuditActor, type AuditTarget } from '@/server/audit/record';
import type { ScimCaller } from './token';

/** The organization's IdP, as the audit log names it (spec 5: actor type `scim`). */
export const scimActor = (caller: ScimCaller): AuditActor => ({ type: 'scim', id: caller.organizationId });

/** Records a change the IdP made through SCIM (issue 46), with the request the kernel noted for the caller. */
export function auditScim(tx: Tx, caller: ScimCaller, action: AuditAction, target: AuditTarget, changes: { before?: Record<string, unknown> | null; after?: Record<string, unknown> | null } = {}) {
  return recordAudit(tx, scimActor(caller), action, target, { accountId: caller.accountId, organizationId: caller.organizationId, caller, ...changes });
}
