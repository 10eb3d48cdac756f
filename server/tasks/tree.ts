import { count, eq, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { tasks, type TaskRow } from '@/db/schema';
import type { Limits } from '@/server/accounts/limits';

/*
 * A task tree: a task the user (or a trigger) created, and every task runs of it created, at any
 * depth, with subtasks and create_task alike (tasks.root_task_id names the first one). A tree
 * holds at most STEWARD_TASK_TREE_MAX tasks, counting every level and every wake, so one message
 * cannot fan out into thousands of runs. Concurrent runs of one tree creating tasks take the
 * tree's advisory lock first: they count one after another, and the limit holds exactly.
 */

/** How many more tasks the creator's tree may take, with the tree's root; the tree's lock is held until the caller commits. */
export async function treeRoom(tx: Tx, creator: Pick<TaskRow, 'id' | 'rootTaskId'>, limits: Pick<Limits, 'taskTreeMax'>): Promise<{ rootId: string; room: number; max: number }> {
  const rootId = creator.rootTaskId ?? creator.id;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`task-tree:${rootId}`}))`);
  const [row] = await tx.select({ n: count() }).from(tasks).where(eq(tasks.rootTaskId, rootId));
  // The root itself is one task of its tree.
  const size = 1 + (row?.n ?? 0);
  return { rootId, room: Math.max(0, limits.taskTreeMax - size), max: limits.taskTreeMax };
}
