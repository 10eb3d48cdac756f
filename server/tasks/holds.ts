import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { accounts, taskActivities, taskRuns, tasks, users, type TaskRow } from '@/db/schema';
import { logger } from '@/server/logger';
import { applyChange } from './move';
import { queueWakeRun } from './runs';
import { plan } from './transitions';

/*
 * What the system does to tasks on its own, besides alarms and schedules (wakeups.ts):
 * - holds (spec 2, paused: "Held by the system"): a run about to start for an owner who is
 *   suspended or deactivated holds its task in `paused` (systemHold `owner_inactive`) instead of
 *   acting for them; once the owner is active again the hold lifts and the task runs.
 * - conversations whose new message could not be read (`message_received`: the account was frozen)
 *   reopen once the kill switch is released.
 * - failures nobody took up (`error`, `failed_access`) for STEWARD_TASK_ABANDON_DAYS are given up
 *   (`abandoned`); the owner is told through the move hook (a notice, server/notices/events.ts).
 * Run by the `task-holds-sweep` function (inngest/functions/task-holds-sweep.ts).
 */

/** Tasks looked at per kind and pass; the rest wait for the next one. */
const BATCH = 200;

const DAY_MS = 86_400_000;

/** STEWARD_TASK_ABANDON_DAYS (default 30): how long a failure waits for the user before it is given up. */
export function abandonAfterMs(env: Record<string, string | undefined> = process.env): number {
  const days = Number(env.STEWARD_TASK_ABANDON_DAYS);
  return (Number.isFinite(days) && days > 0 ? days : 30) * DAY_MS;
}

const note = (tx: Tx, task: TaskRow, content: string) =>
  tx.insert(taskActivities).values({ taskId: task.id, accountId: task.accountId, kind: 'system', content, createdAt: sql`clock_timestamp()` });

/**
 * The start of a run for an owner who may not act (suspended, deactivated): the task is held
 * instead (pending or executing → paused, `owner_inactive`), with a note on its feed. The caller
 * cancels the run.
 */
export async function holdForInactiveOwner(tx: Tx, task: TaskRow, now: Date): Promise<TaskRow> {
  const held = await applyChange(tx, task, plan(task, 'hold', 'paused', undefined, now, 'owner_inactive'), 'hold');
  await note(tx, held, 'Paused by Steward: the owner of this task is suspended or deactivated, so the assistant does not act for them. It resumes on its own once they are active again.');
  return held;
}

/** A message reached a conversation at rest and no run may read it now (a frozen account): the thread rests as message_received. */
export async function noteUnreadMessage(tx: Tx, task: TaskRow, now: Date): Promise<TaskRow> {
  return applyChange(tx, task, plan(task, 'message_arrived', 'message_received', undefined, now), 'message_arrived');
}

export type HoldsResult = { released: number; reopened: number; abandoned: number; failed: string[] };

/** Locks one task if it still matches `where` (one another executor holds is skipped), then moves it. */
async function each(db: Db, ids: string[], where: (id: string) => ReturnType<typeof and>, move: (tx: Tx, task: TaskRow) => Promise<void>, failed: string[]): Promise<number> {
  let n = 0;
  for (const id of ids) {
    try {
      const done = await db.transaction(async (tx) => {
        const [task] = await tx.select().from(tasks).where(where(id)).for('update', { skipLocked: true });
        if (!task) return false;
        await move(tx, task);
        return true;
      });
      if (done) n++;
    } catch (e) {
      logger.error({ err: e, taskId: id }, 'task holds: a task could not be moved; the next pass tries again');
      failed.push(id);
    }
  }
  return n;
}

const accountLive = sql`NOT EXISTS (SELECT 1 FROM ${accounts} WHERE ${accounts.id} = ${tasks.accountId} AND ${accounts.killSwitch})`;
const ownerActive = sql`EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${tasks.userId} AND ${users.status} = 'active')`;

/**
 * One pass: held tasks whose owner is active again go back to pending with a run (trigger `wake`);
 * message_received conversations of accounts no longer frozen reopen with a run that reads the
 * message (trigger `reply`); failures idle past the abandon delay become abandoned. A frozen
 * account's holds wait for the switch to be released as well.
 */
export async function sweepTaskHolds(db: Db, now = new Date()): Promise<HoldsResult> {
  const failed: string[] = [];
  const liftable = and(eq(tasks.status, 'paused'), eq(tasks.systemHold, 'owner_inactive'), ownerActive, accountLive)!;
  const held = await db.select({ id: tasks.id }).from(tasks).where(liftable).limit(BATCH);
  const released = await each(
    db,
    held.map((r) => r.id),
    (id) => and(eq(tasks.id, id), liftable),
    async (tx, task) => {
      const woken = await applyChange(tx, task, plan(task, 'release', 'pending', undefined, now), 'release');
      await queueWakeRun(tx, woken, 'wake');
    },
    failed,
  );

  const unread = and(eq(tasks.status, 'message_received'), accountLive)!;
  const waiting = await db.select({ id: tasks.id }).from(tasks).where(unread).limit(BATCH);
  const reopened = await each(
    db,
    waiting.map((r) => r.id),
    (id) => and(eq(tasks.id, id), unread),
    async (tx, task) => {
      const woken = await applyChange(tx, task, plan(task, 'wake', 'pending', undefined, now), 'wake');
      // The run reads the conversation, the message that could not be read then among it.
      await queueWakeRun(tx, woken, 'reply');
    },
    failed,
  );

  const idle = and(inArray(tasks.status, ['error', 'failed_access']), lt(tasks.updatedAt, new Date(now.getTime() - abandonAfterMs())))!;
  // A failure with a run still open (a process call just queued one) is being taken up.
  const noOpenRun = sql`NOT EXISTS (SELECT 1 FROM ${taskRuns} WHERE ${taskRuns.taskId} = ${tasks.id} AND ${taskRuns.status} IN ('queued', 'running'))`;
  const stale = await db.select({ id: tasks.id }).from(tasks).where(and(idle, noOpenRun)).orderBy(asc(tasks.updatedAt)).limit(BATCH);
  const abandoned = await each(
    db,
    stale.map((r) => r.id),
    (id) => and(eq(tasks.id, id), idle, noOpenRun),
    async (tx, task) => {
      const gone = await applyChange(tx, task, plan(task, 'abandon', 'abandoned', undefined, now), 'abandon');
      await note(tx, gone, `Given up by Steward: the task stayed ${task.status.replace(/_/g, ' ')} for ${Math.round(abandonAfterMs() / DAY_MS)} days without anyone taking it up. Send a message to try again.`);
    },
    failed,
  );
  return { released, reopened, abandoned, failed };
}
