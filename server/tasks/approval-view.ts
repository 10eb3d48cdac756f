import type { Tx } from '@/db/client';
import type { TaskRow } from '@/db/schema';
import { taskApprovalBinding } from '@/server/policy/autonomy-resolve';

const SOURCE = { account: 'account', organization: 'org', team: 'team' } as const;

/**
 * What GET /tasks/{taskId} shows about approvals, from the one autonomy resolution
 * (server/policy/autonomy-resolve.ts): the task's own mode as it stands against the locks
 * (null: each action follows the owner's supervision matrix, resolved per action type and
 * recipient when something is staged), and every cell an account, organization or team
 * binds for the owner.
 */
export async function approvalView(tx: Tx, task: TaskRow, ownerOrganizationId: string | null) {
  const binding = await taskApprovalBinding(tx, { id: task.userId, accountId: task.accountId, organizationId: ownerOrganizationId }, task.approvalMode);
  return {
    effectiveApprovalMode: binding.modeInForce,
    approvalLocks: binding.locks.map((l) => ({ actionType: l.actionType, mode: l.mode, source: SOURCE[l.source] })),
  };
}
