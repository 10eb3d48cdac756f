import type { Tx } from '@/db/client';
import type { TaskRow, TaskStatus } from '@/db/schema';

/*
 * A task's status changed (move.ts, in the transaction of the change). Higher floors register what
 * follows (server/compose/area-hooks.ts: a notice when a task fails or runs out of credits); this area
 * cannot import them. Without a registration nothing follows.
 */

export type TaskMoved = (tx: Tx, task: TaskRow, from: TaskStatus) => Promise<void>;

let moved: TaskMoved | null = null;

export function registerTaskMoved(fn: TaskMoved | null): void {
  moved = fn;
}

export async function taskMoved(tx: Tx, task: TaskRow, from: TaskStatus): Promise<void> {
  if (moved) await moved(tx, task, from);
}
