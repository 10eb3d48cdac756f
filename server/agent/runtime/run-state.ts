import { and, count, eq, inArray } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { taskActivities, taskRuns, tasks, type TaskRow, type TaskRunRow } from '@/db/schema';

/**
 * The run and its task, locked for the rest of the transaction: each step of a run decides from
 * them. The task is locked before the run, in the order process, stop and mark-done take them
 * (they lock the task, then touch its runs), so a step and a user's move never deadlock.
 */
export async function lockedRun(tx: Tx, runId: string): Promise<{ run: TaskRunRow; task: TaskRow } | null> {
  const [ref] = await tx.select({ taskId: taskRuns.taskId, accountId: taskRuns.accountId }).from(taskRuns).where(eq(taskRuns.id, runId));
  if (!ref) return null;
  const [task] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, ref.taskId), eq(tasks.accountId, ref.accountId)))
    .for('update');
  if (!task) return null;
  const [run] = await tx.select().from(taskRuns).where(eq(taskRuns.id, runId)).for('update');
  return run ? { run, task } : null;
}

/**
 * How many messages the task has received (the user's, and replies of the people it waits on).
 * Activities are only ever appended, so
 * comparing this count with the one a model call saw tells whether a message arrived after the
 * model read the conversation (a message sent during the run must not go unanswered).
 */
export async function userMessageCount(tx: Tx, taskId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(taskActivities)
    .where(and(eq(taskActivities.taskId, taskId), inArray(taskActivities.kind, ['user', 'contact'])));
  return row?.n ?? 0;
}
