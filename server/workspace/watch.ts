import type { Tx } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { ownTask } from '@/server/tasks/access';
import { onUserBrowser } from './nodes/follow';

/*
 * GET /workspace/watch: one PNG frame of a task's tab. Watching neither starts the workspace,
 * nor takes control, nor counts as activity (a dashboard polling it must not keep an idle
 * browser alive). The frame is taken (browser/frames.ts) in the process that holds the user's
 * browser (nodes/follow.ts), whichever process was asked.
 */

const unavailable = (taskId: string) => ({
  ok: true as const,
  available: false,
  reason: 'watch_unavailable' as const,
  taskId,
  capturedAt: null,
  width: null,
  height: null,
  pngBase64: null,
  sequence: null,
});

export async function watchTask(db: Tx, actor: Actor, taskId: string) {
  const { task } = await ownTask(db, actor, taskId);
  const frame = await onUserBrowser(task.accountId, task.userId, 'watch', { taskId: task.id });
  if (!frame) return unavailable(task.id);
  return { ok: true as const, available: true, taskId: task.id, ...frame };
}
