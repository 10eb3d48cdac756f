import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { tasks, type TaskRow } from '@/db/schema';
import { applyChange } from './move';
import { queueWakeRun } from './runs';
import { allowed, plan } from './transitions';

/*
 * A task's cart reached its outcome (spec document 2: "A task also resumes when a staged cart is
 * approved, cancelled or executed; the next run is told the outcome"). The approvals area calls
 * this; what the run is told is read from the carts when the run builds its context.
 */

/**
 * Locks a cart's task for the rest of the transaction. Whoever changes a cart and then its task
 * takes the task first, as mark-done and the run's end step do (task, then its carts), so the
 * two never wait on each other in opposite orders.
 */
export async function lockTaskForCart(tx: Tx, taskId: string): Promise<TaskRow | null> {
  const [task] = await tx.select().from(tasks).where(eq(tasks.id, taskId)).for('update');
  return task ?? null;
}

/**
 * Wakes the task with a run triggered by `cart` when it waits (for the user, someone else, an
 * alarm or its subtasks): back to pending through the transition table, its alarm cancelled. A
 * task that is running, already woken, at rest elsewhere or closed is left as it is: a running
 * or queued run reads the outcome when it next builds its context, and a closed task has no run
 * to tell. Returns whether it woke. Call with the task locked (lockTaskForCart).
 */
export async function wakeTaskForCart(tx: Tx, task: TaskRow, now = new Date()): Promise<boolean> {
  if (!allowed(task.status, 'wake', 'pending')) return false;
  const woken = await applyChange(tx, task, plan(task, 'wake', 'pending', undefined, now), 'wake');
  await queueWakeRun(tx, woken, 'cart');
  return true;
}
