import { and, asc, eq, isNull, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { accounts, tasks, type TaskRow } from '@/db/schema';
import { applyChange } from './move';
import { queueWakeRun } from './runs';
import { allowed, plan } from './transitions';

/*
 * Wake-ups (spec document 2, alarms and scheduledFor): what the engine's cron (and the
 * steward/tasks.wakeups-due event) asks for every minute. A due alarm fires: the task wakes
 * (back to pending, per the transition table) and a run is queued with trigger `alarm`. A
 * scheduled task whose time has come starts (schedule_due) with a run triggered by `schedule`,
 * unless it is an agent's proposal still waiting for the user's approval. Nothing of an account
 * whose kill switch is engaged wakes until it is released.
 */

/** Tasks looked at per call and kind; the rest wait for the next minute. */
const BATCH = 200;

/**
 * A frozen account's tasks are neither woken nor started: they stay due, and the first pass after
 * the kill switch is released wakes them. Checked again under the row lock with the rest.
 */
const accountLive = sql`NOT EXISTS (SELECT 1 FROM ${accounts} WHERE ${accounts.id} = ${tasks.accountId} AND ${accounts.killSwitch})`;

const alarmDue = (now: Date): SQL => and(eq(tasks.alarmStatus, 'set'), lte(tasks.alarmWakeAt, now), accountLive)!;

const scheduleDue = (now: Date): SQL =>
  and(
    eq(tasks.status, 'scheduled'),
    lte(tasks.scheduledFor, now),
    or(isNull(tasks.proposalStatus), ne(tasks.proposalStatus, 'pending_user_approval')),
    accountLive,
  )!;

/** The task locked for this transaction if it is still due; one another executor holds is skipped (it is waking it). */
async function lockIfDue(tx: Tx, id: string, due: SQL): Promise<TaskRow | null> {
  const [task] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, id), due))
    .for('update', { skipLocked: true });
  return task ?? null;
}

/** Fires the alarm: marked `fired` in the same write as the wake, so the waiting status never exists without an active alarm. */
async function fireAlarm(tx: Tx, task: TaskRow, now: Date): Promise<void> {
  if (!allowed(task.status, 'wake', 'pending')) {
    // An alarm left on a task that is not waiting (a run is going, or it sits scheduled): nothing to wake.
    await tx.update(tasks).set({ alarmStatus: 'fired' }).where(eq(tasks.id, task.id));
    return;
  }
  // Planned as if already fired, so plan() does not mark the alarm cancelled on the way out.
  const change = { ...plan({ ...task, alarmStatus: 'fired' }, 'wake', 'pending', undefined, now), alarmStatus: 'fired' as const };
  const woken = await applyChange(tx, task, change, 'wake');
  // The run reads the fired alarm (its headline and time) and whom the task still waits on, and
  // is told nobody replied (agent/runtime/wake-note.ts).
  await queueWakeRun(tx, woken, 'alarm');
}

async function startScheduled(tx: Tx, task: TaskRow, now: Date): Promise<void> {
  const started = await applyChange(tx, task, plan(task, 'schedule_due', 'executing', undefined, now), 'schedule_due');
  await queueWakeRun(tx, started, 'schedule');
}

export type WakeupsResult = { alarmsFired: number; scheduledStarted: number; failed: string[] };

/**
 * Wakes every task due at `now`, each in its own transaction: one task that cannot be woken
 * (its id is returned in `failed`) does not hold back the others. Rows are locked FOR UPDATE
 * SKIP LOCKED and checked again under the lock, so two executors running this at once never
 * wake one task twice.
 */
export async function wakeDueTasks(db: Db, now = new Date()): Promise<WakeupsResult> {
  const result: WakeupsResult = { alarmsFired: 0, scheduledStarted: 0, failed: [] };
  const kinds = [
    { due: alarmDue(now), order: tasks.alarmWakeAt, wake: fireAlarm, count: 'alarmsFired' as const },
    { due: scheduleDue(now), order: tasks.scheduledFor, wake: startScheduled, count: 'scheduledStarted' as const },
  ];
  for (const kind of kinds) {
    const due = await db.select({ id: tasks.id }).from(tasks).where(kind.due).orderBy(asc(kind.order)).limit(BATCH);
    for (const { id } of due) {
      try {
        const woke = await db.transaction(async (tx) => {
          const task = await lockIfDue(tx, id, kind.due);
          if (!task) return false;
          await kind.wake(tx, task, now);
          return true;
        });
        if (woke) result[kind.count]++;
      } catch (e) {
        console.error(`wake-ups: task ${id} could not be woken:`, e);
        result.failed.push(id);
      }
    }
  }
  return result;
}

/**
 * Wakes one task whose alarm or scheduled time has come (the engine's timer for it,
 * inngest/functions/task-timer.ts), as the sweep would: nothing when it is not due any more (woken
 * by a reply, stopped, moved to another time) or another executor holds it.
 */
export async function wakeTask(db: Db, taskId: string, now = new Date()): Promise<'alarm' | 'schedule' | null> {
  for (const kind of [
    { name: 'alarm' as const, due: alarmDue(now), wake: fireAlarm },
    { name: 'schedule' as const, due: scheduleDue(now), wake: startScheduled },
  ]) {
    const woke = await db.transaction(async (tx) => {
      const task = await lockIfDue(tx, taskId, kind.due);
      if (!task) return false;
      await kind.wake(tx, task, now);
      return true;
    });
    if (woke) return kind.name;
  }
  return null;
}
