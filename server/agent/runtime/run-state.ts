import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { taskRuns, tasks, type TaskRow, type TaskRunRow } from '@/db/schema';

/** The run and its task, locked for the rest of the transaction: each step of a run decides from them. */
export async function lockedRun(tx: Tx, runId: string): Promise<{ run: TaskRunRow; task: TaskRow } | null> {
  const [run] = await tx.select().from(taskRuns).where(eq(taskRuns.id, runId)).for('update');
  if (!run) return null;
  const [task] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, run.taskId), eq(tasks.accountId, run.accountId)))
    .for('update');
  return task ? { run, task } : null;
}
