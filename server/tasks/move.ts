import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { tasks, type TaskRow } from '@/db/schema';
import { refused, type Move, type TaskChange } from './transitions';

/**
 * Writes a planned change (transitions.ts) only if the task is still in the status it was
 * planned from: a concurrent move makes this one a 409 naming the status the task is in now.
 */
export async function applyChange(tx: Tx, task: TaskRow, change: TaskChange & Partial<TaskRow>, move: Move | 'process'): Promise<TaskRow> {
  const [row] = await tx
    .update(tasks)
    .set(change)
    .where(and(eq(tasks.id, task.id), eq(tasks.status, task.status)))
    .returning();
  if (row) return row;
  const [now] = await tx.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, task.id));
  throw refused(now?.status ?? task.status, move);
}
