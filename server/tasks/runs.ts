import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { taskRuns, type TaskRow, type TaskRunRow } from '@/db/schema';

/*
 * Run history. This session has no model runtime: a run is only recorded, `queued`, and
 * nothing pretends it ran. The runtime plugs in at queueRun (send the run's event) and moves
 * the row to running/finished/failed itself.
 */

type Trigger = TaskRunRow['trigger'];

/** Records a queued run of the task; its id is the executionId the API returns. The runtime will dispatch it from here. */
export async function queueRun(tx: Tx, task: Pick<TaskRow, 'id' | 'accountId' | 'modelTier'>, trigger: Trigger): Promise<TaskRunRow> {
  const [run] = await tx.insert(taskRuns).values({ taskId: task.id, accountId: task.accountId, trigger, modelTier: task.modelTier }).returning();
  return run;
}

/** The queued or running run of a task, if any: a message during a run goes to it, and there is never a second one. */
export async function openRun(tx: Tx, taskId: string): Promise<TaskRunRow | null> {
  const [run] = await tx
    .select()
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, taskId), inArray(taskRuns.status, ['queued', 'running'])))
    .limit(1);
  return run ?? null;
}

/** Stop and mark-done end the current run: a queued one never starts, a running one is told to stop by its status. */
export async function cancelOpenRuns(tx: Tx, taskId: string): Promise<void> {
  await tx
    .update(taskRuns)
    .set({ status: 'cancelled', endedAt: new Date() })
    .where(and(eq(taskRuns.taskId, taskId), inArray(taskRuns.status, ['queued', 'running'])));
}

/** Whether a run has ever started: from then on the task's modelTier is fixed. */
export async function hasStarted(tx: Tx, taskId: string): Promise<boolean> {
  const [run] = await tx
    .select({ startedAt: taskRuns.startedAt })
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, taskId), isNotNull(taskRuns.startedAt)))
    .limit(1);
  return run !== undefined;
}
