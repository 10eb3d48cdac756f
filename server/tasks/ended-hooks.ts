import type { Tx } from '@/db/client';
import type { TaskRow } from '@/db/schema';

/**
 * Who hears that a task's work ended (completed, failed, given up...), inside the transaction that
 * ended it: the workflows area (queued firings may start, `system` triggers of other workflows
 * fire). Features above tasks cannot be imported here, so they register from the entry floor
 * (server/compose/area-hooks.ts).
 */
export type TaskEnded = (tx: Tx, task: TaskRow, from: TaskRow['status']) => Promise<void>;

const hooks: TaskEnded[] = [];

export function registerTaskEnded(fn: TaskEnded): void {
  if (!hooks.includes(fn)) hooks.push(fn);
}

export async function taskEnded(tx: Tx, task: TaskRow, from: TaskRow['status']): Promise<void> {
  for (const h of hooks) await h(tx, task, from);
}
