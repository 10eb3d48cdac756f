import type { Db } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { forbidden } from '@/server/http/errors';
import type { CleanupScope } from './clean-running';
import { onUserBrowser } from './nodes/follow';

export type { CleanupScope } from './clean-running';

/**
 * POST /workspace/cleanup (spec document 2): what is emptied is clean-running.ts's. Starts the
 * browser when it is not running, in the process that holds it (nodes/follow.ts); a person must
 * be on the call (403 otherwise: a task run or an account-wide credential cannot wipe someone's
 * workspace).
 */
export async function cleanupWorkspace(db: Db, actor: Actor, scope: CleanupScope) {
  if (!actor.user || actor.credential.kind === 'certificate' || actor.credential.kind === 'agent') {
    throw forbidden('Cleaning a workspace needs an end user on the call: use a user key, or an account key with X-User-Email', 'end_user_required');
  }
  await onUserBrowser(actor.accountId, actor.user.id, 'cleanup', { scope }, db);
  return { ok: true as const, scope };
}
