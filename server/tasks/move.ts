import { emitWebhookEvent } from '@/server/webhooks/emit';
import { taskEnded } from './ended-hooks';
import { taskMoved } from './moved-hooks';
import { signalTaskTimer } from './timers';
import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { tasks, type TaskRow, type TaskStatus } from '@/db/schema';
import { isEnded as hasEnded } from './ended';
import { settleParent } from './subtasks';
import { refused, type Move, type TaskChange } from './transitions';

/**
 * Where waitingOnContacts stays filled: while the task waits on those people, and through the
 * wake and the run that follows up on them (the run is told whom it still waits on). Any other
 * status the task comes to clears it, unless the change names new people itself.
 */
const KEEPS_CONTACTS: readonly TaskStatus[] = ['awaiting_non_user_response', 'pending', 'executing'];

/**
 * Writes a planned change (transitions.ts) only if the task is still in the status it was
 * planned from: a concurrent move makes this one a 409 naming the status the task is in now.
 * Being the one place statuses are written, it also keeps what follows from a status: the
 * people waited on are forgotten once the task rests elsewhere, and a subtask that ends may
 * wake its parent (subtasks.ts), whichever path ended it.
 */
export async function applyChange(tx: Tx, task: TaskRow, change: TaskChange & Partial<TaskRow>, move: Move | 'process'): Promise<TaskRow> {
  const write = { ...change };
  if (write.status && !KEEPS_CONTACTS.includes(write.status) && write.waitingOnContacts === undefined && task.waitingOnContacts.length) {
    write.waitingOnContacts = [];
  }
  const [row] = await tx
    .update(tasks)
    .set(write)
    .where(and(eq(tasks.id, task.id), eq(tasks.status, task.status)))
    .returning();
  if (!row) {
    const [now] = await tx.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, task.id));
    throw refused(now?.status ?? task.status, move);
  }
  if (row.parentTaskId && hasEnded(row.status) && !hasEnded(task.status)) await settleParent(tx, row.parentTaskId, applyChange);
  if (hasEnded(row.status) && !hasEnded(task.status)) await taskEnded(tx, row, task.status);
  // In the same transaction: the account's endpoints hear of the move exactly when it commits.
  await signalTaskTimer(tx, row, task);
  if (row.status !== task.status) {
    await taskMoved(tx, row, task.status);
    await emitWebhookEvent(tx, row.accountId, 'task.status_changed', { taskId: row.id, userId: row.userId, assistantId: row.assistantId, title: row.title, from: task.status, to: row.status });
  }
  return row;
}
