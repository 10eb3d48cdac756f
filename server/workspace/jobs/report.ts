import type { Db } from '@/db/client';
import type { WorkspaceJobRow } from '@/db/schema';
import { recordActivities } from '@/server/tasks/activities';
import { lockTaskForCart } from '@/server/tasks/cart-wake';
import { applyChange } from '@/server/tasks/move';
import { queueWakeRun } from '@/server/tasks/runs';
import { recordTaint } from '@/server/tasks/taint';
import { allowed, plan } from '@/server/tasks/transitions';
import { presentJob } from './store';

/*
 * A finished job reports to the task that started it (spec 5: background work the task can
 * poll; its result returns to the task): in one transaction, a `job_status` tool activity holding
 * the job as job_status would show it (the model reads it as the answer to a poll, wrapped as
 * untrusted data like every tool result), the task tainted with it (what a command printed or a
 * repository held is outside content), and a wake through the transition table when the task
 * waits (for an alarm, the user, someone, its subtasks): back to pending with a run. A task that
 * is running reads the activity in its next model call; a closed one is only told.
 */

export async function reportToTask(db: Db, job: WorkspaceJobRow): Promise<void> {
  if (!job.taskId) return;
  await db.transaction(async (tx) => {
    const task = await lockTaskForCart(tx, job.taskId!);
    if (!task || task.accountId !== job.accountId || task.userId !== job.userId) return;
    await recordActivities(tx, task, [
      { kind: 'tool', runId: null, toolName: 'job_status', toolCallId: `job_${job.id}`, toolInput: { jobId: job.id }, toolOutput: presentJob(job) },
    ]);
    // The same source runtime/taint.ts names for a job_status result, so the two count once.
    await recordTaint(tx, task.id, null, [{ kind: 'web', ref: `workspace job ${job.id}` }]);
    // Read again: recording the taint changed the row.
    const current = await lockTaskForCart(tx, task.id);
    if (current && allowed(current.status, 'wake', 'pending')) {
      const woken = await applyChange(tx, current, plan(current, 'wake', 'pending'), 'wake');
      await queueWakeRun(tx, woken, 'wake');
    }
  });
}
