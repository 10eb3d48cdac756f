import { sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import type { TaskRow } from '@/db/schema';

/*
 * Alarms and scheduled starts at their time (spec document 2: "scheduled: time reaches
 * scheduledFor → starts on its own"; alarms wake a task at wakeAt). Whenever a write sets a task's
 * alarm or scheduled time, the time is handed to the engine, which sleeps until then and wakes that
 * one task (inngest/functions/task-timer.ts), so it starts within moments of its time instead of at
 * the next minute's sweep. The sweep (wakeups.ts) stays the safety net for a lost handover. The
 * engine sits above this area: the entry floor registers the handover (server/compose/engine-wakeups.ts).
 */

export type TaskTimer = { taskId: string; accountId: string; at: string; transactionId: string };
type Handover = (timer: TaskTimer) => void;

let handover: Handover | null = null;

export function registerTaskTimer(fn: Handover | null): void {
  handover = fn;
}

/** The time a task must wake or start at, if it has one. */
export function timeOf(task: Pick<TaskRow, 'status' | 'scheduledFor' | 'alarmStatus' | 'alarmWakeAt'>): Date | null {
  if (task.status === 'scheduled' && task.scheduledFor) return task.scheduledFor;
  if (task.alarmStatus === 'set' && task.alarmWakeAt) return task.alarmWakeAt;
  return null;
}

/** Hands the task's time to the engine once the caller's transaction commits, when it changed. */
export async function signalTaskTimer(tx: Tx, task: TaskRow, before?: Pick<TaskRow, 'status' | 'scheduledFor' | 'alarmStatus' | 'alarmWakeAt'>): Promise<void> {
  if (!handover) return;
  const at = timeOf(task);
  if (!at) return;
  const was = before ? timeOf(before) : null;
  if (was && was.getTime() === at.getTime()) return;
  const { rows } = await tx.execute<{ xid: string }>(sql`SELECT pg_current_xact_id()::text AS xid`);
  try {
    handover({ taskId: task.id, accountId: task.accountId, at: at.toISOString(), transactionId: rows[0]!.xid });
  } catch {
    // The minute sweep wakes it: a timer must never fail the change that set it.
  }
}
