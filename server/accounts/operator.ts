import { isAccountWide, type Actor } from '@/server/access/actor';
import type { AuditActor } from '@/server/audit/record';
import { forbidden, notFound } from '@/server/http/errors';

/**
 * Who runs a console job on an account: the operator at the admin CLI (ADMIN_CLI, any account of
 * the deployment), or an account-wide actor (a console member, an account key) on its own account
 * only. The audit log names whichever it was.
 */
export type AccountOperator = Actor | AuditActor;

export const isActor = (by: AccountOperator): by is Actor => 'credential' in by;

/** An actor reaches only its own account (another one is 404, as if it did not exist) and only account-wide (403). */
export function assertOperates(by: AccountOperator, accountId: string): void {
  if (!isActor(by)) return;
  if (by.accountId !== accountId) throw notFound('Account');
  if (!isAccountWide(by)) throw forbidden('Console settings need an account-wide credential');
}
