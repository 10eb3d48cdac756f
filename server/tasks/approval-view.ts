import type { Tx } from '@/db/client';
import { activeMembership } from '@/db/queries/memberships';
import type { TaskRow } from '@/db/schema';
import { policyChain } from '@/server/policy/resolve';

const SOURCE = { account: 'account', organization: 'org', team: 'team' } as const;

/**
 * What GET /tasks/{taskId} shows about approvals: the task's own mode (null: each action
 * follows the user's autonomy settings, resolved per action type when something is staged),
 * and every cell an account, organization or team locked for the owner, from the one policy
 * resolution (server/policy/resolve.ts).
 */
export async function approvalView(tx: Tx, task: TaskRow, ownerOrganizationId: string | null) {
  const team = await activeMembership(tx, task.userId);
  const chain = await policyChain(tx, { accountId: task.accountId, organizationId: ownerOrganizationId, teamId: team?.m.teamId ?? null });
  const approvalLocks = chain.flatMap((row) =>
    Object.entries(row.matrix ?? {})
      .filter(([, cell]) => cell.locked)
      .map(([actionType, cell]) => ({ actionType, mode: cell.mode, source: SOURCE[row.level] })),
  );
  return { effectiveApprovalMode: task.approvalMode, approvalLocks };
}
