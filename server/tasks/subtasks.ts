import { and, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { taskActivities, tasks, type TaintSource, type TaskRow, type TaskStatus } from '@/db/schema';
import { ENDED_STATUSES } from './ended';
import { queueWakeRun } from './runs';
import { plan, type Move, type TaskChange } from './transitions';

/*
 * Subtasks (spec: create_subtasks): a parent in `subtasks_running` wakes once every child has
 * ended. The rule is called from applyChange (move.ts), the one place statuses are written, and
 * from deleteTask, so no path that ends a child can forget it.
 */

/*
 * A child has ended when its work is over (ended.ts, the one definition); a deleted child is
 * gone, which counts the same. Held or stopped children (on_hold, paused...) can still resume, so
 * the parent keeps waiting for them (its alarm still wakes it).
 */

/** applyChange, handed in by its callers: move.ts calls this module, so this module cannot import move.ts. */
type ApplyChange = (tx: Tx, task: TaskRow, change: TaskChange & Partial<TaskRow>, move: Move | 'process') => Promise<TaskRow>;

/**
 * Wakes the parent if it waits on its subtasks and none of them is still open: back to pending
 * through the transition table (its alarm cancelled) and a run queued with trigger `subtasks`.
 * The parent row is locked before the children are counted, so of two children ending at the
 * same moment the second waits for the first to commit, then counts it as ended (each statement
 * reads what is committed): the parent wakes exactly once, never zero times or twice.
 */
export async function settleParent(tx: Tx, parentTaskId: string, apply: ApplyChange, now = new Date()): Promise<boolean> {
  const [parent] = await tx.select().from(tasks).where(eq(tasks.id, parentTaskId)).for('update');
  if (!parent || parent.status !== 'subtasks_running') return false;
  const [open] = await tx
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.parentTaskId, parent.id), notInArray(tasks.status, [...ENDED_STATUSES])))
    .limit(1);
  if (open) return false;
  const woken = await apply(tx, parent, plan(parent, 'wake', 'pending', undefined, now), 'wake');
  await queueWakeRun(tx, woken, 'subtasks');
  return true;
}

/** How many levels of subtasks may nest under a top-level task: enough to split work, too few to multiply it without end. */
export const MAX_SUBTASK_DEPTH = 3;

/** How deep the task sits: 0 for a top-level task, 1 for its child, and so on. */
export async function subtaskDepth(db: Tx, task: Pick<TaskRow, 'parentTaskId'>): Promise<number> {
  let depth = 0;
  let parentId = task.parentTaskId;
  while (parentId && depth <= MAX_SUBTASK_DEPTH) {
    const [up] = await db.select({ parentTaskId: tasks.parentTaskId }).from(tasks).where(eq(tasks.id, parentId));
    depth++;
    parentId = up?.parentTaskId ?? null;
  }
  return depth;
}

export type SubtaskReport = { id: string; title: string; status: TaskStatus; summary: string | null; lastMessage: string | null; taintSources: TaintSource[] };

/** The most children a parent's run is told about (the newest). */
const REPORTED = 50;
const MESSAGE_CHARS = 2_000;

/**
 * A task's children as its run reads them: title, status, summary, and for a child without a
 * summary (one that failed or stopped) its last assistant message, so the parent learns why.
 * Oldest first, in the order the parent created them.
 */
export async function subtaskReports(db: Db | Tx, task: Pick<TaskRow, 'id' | 'accountId'>): Promise<SubtaskReport[]> {
  const children = await db
    .select({ id: tasks.id, title: tasks.title, status: tasks.status, summary: tasks.summary, taintSources: tasks.taintSources })
    .from(tasks)
    .where(and(eq(tasks.parentTaskId, task.id), eq(tasks.accountId, task.accountId)))
    .orderBy(desc(tasks.createdAt), desc(tasks.id))
    .limit(REPORTED);
  children.reverse();
  const silent = children.filter((c) => !c.summary).map((c) => c.id);
  const last = new Map<string, string>();
  if (silent.length) {
    const rows = await db
      .selectDistinctOn([taskActivities.taskId], { taskId: taskActivities.taskId, content: taskActivities.content })
      .from(taskActivities)
      .where(and(inArray(taskActivities.taskId, silent), eq(taskActivities.kind, 'assistant'), sql`${taskActivities.content} <> ''`))
      .orderBy(taskActivities.taskId, desc(taskActivities.createdAt), desc(taskActivities.id));
    for (const r of rows) last.set(r.taskId, r.content.length > MESSAGE_CHARS ? `${r.content.slice(0, MESSAGE_CHARS)}...` : r.content);
  }
  return children.map((c) => ({ ...c, lastMessage: last.get(c.id) ?? null }));
}
