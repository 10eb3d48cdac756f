import type { Tx } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { AppError } from '@/server/http/errors';
import { policyRowsForUser, resolveCapabilities } from '@/server/policy/resolve';

/**
 * Team policy's `workspaceCli` (spec document 2, Workspace controls: shell, file writes and
 * deletes): an `off` at the account, the organization or any of the user's teams refuses.
 */
export async function assertWorkspaceCli(db: Tx, actor: UserActor): Promise<void> {
  const { capabilities } = resolveCapabilities(await policyRowsForUser(db, actor.user));
  if (capabilities.workspaceCli === 'off') {
    throw new AppError(
      403,
      'workspace_cli_off',
      'The workspace shell and file writes are turned off by the policy of this user’s team or organization (workspaceCli): nothing was run or changed. Do the task another way or tell the user.',
    );
  }
}
