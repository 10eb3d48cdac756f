import { and, count, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { runSlotWaits, taskRuns, users, type TaskRunRow } from '@/db/schema';
import { limitsFor } from '@/server/accounts/limits';
import { holdForInactiveOwner } from '@/server/tasks/holds';
import { applyChange } from '@/server/tasks/move';
import { plan } from '@/server/tasks/transitions';
import { lockedRun } from './run-state';

/** What one run may do (spec 5, Limits), fixed when it starts: the durable loop counts against these on replay too. */
export type RunLimits = { maxModelCalls: number; maxToolCalls: number };

export type RunStart =
  | { go: true; taskId: string; userId: string | null; limits: RunLimits }
  | { go: false; reason: string }
  /** Every run slot of the user is taken: the run waits for one (inngest/functions/task-run.ts) and asks again. */
  | { go: false; wait: true; userId: string; reason: string };

/**
 * A user's run slots (STEWARD_USER_MAX_CONCURRENT_RUNS): a run may start while the user's running
 * runs plus the runs that wait for a slot and were queued before it are fewer than the limit, so
 * slots go oldest first and one user's queue never holds back another user's runs. Decided under
 * a per-user advisory lock, so two starts cannot both take the last slot. A run that must wait is
 * noted in run_slot_waits: only runs that asked hold a place in the line (a queued run whose start
 * was lost never blocks the others).
 */
async function takeSlot(tx: Tx, run: TaskRunRow, userMaxConcurrentRuns: number, now: Date): Promise<boolean> {
  if (!run.userId) return true;
  const [running] = await tx
    .select({ n: count() })
    .from(taskRuns)
    .where(and(eq(taskRuns.userId, run.userId), eq(taskRuns.status, 'running')));
  const [ahead] = await tx
    .select({ n: count() })
    .from(runSlotWaits)
    .innerJoin(taskRuns, eq(taskRuns.id, runSlotWaits.runId))
    .where(
      and(
        eq(runSlotWaits.userId, run.userId),
        eq(taskRuns.status, 'queued'),
        sql`(${taskRuns.createdAt}, ${taskRuns.id}) < (SELECT r.created_at, r.id FROM task_runs r WHERE r.id = ${run.id})`,
      ),
    );
  if ((running?.n ?? 0) + (ahead?.n ?? 0) < userMaxConcurrentRuns) {
    await tx.delete(runSlotWaits).where(eq(runSlotWaits.runId, run.id));
    return true;
  }
  await tx.insert(runSlotWaits).values({ runId: run.id, userId: run.userId, createdAt: now }).onConflictDoNothing();
  return false;
}

/**
 * The first step of a run (and, while it waits for a slot, each time it asks again): queued →
 * running. A run queued while the task was pending (the assistant woken by mark-not-done or a
 * top-up) starts the task; one whose task was stopped, finished or deleted meanwhile (or that
 * already started: a replayed event) does nothing. The limits it answers with are the ones the
 * whole run keeps.
 */
export async function startRun(db: Db, runId: string, now = new Date()): Promise<RunStart> {
  return db.transaction(async (tx) => {
    // The owner's status comes with the same read: a run never acts for an owner who may not act.
    const [ref] = await tx.select({ userId: taskRuns.userId, ownerStatus: users.status }).from(taskRuns).leftJoin(users, eq(users.id, taskRuns.userId)).where(eq(taskRuns.id, runId));
    // The user's lock first, then the task's (lockedRun): every start takes them in this order.
    if (ref?.userId) await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`run-slots:${ref.userId}`}))`);
    const locked = await lockedRun(tx, runId);
    if (!locked) return { go: false as const, reason: 'the run or its task no longer exists' };
    const { run, task } = locked;
    if (run.status !== 'queued') {
      await tx.delete(runSlotWaits).where(eq(runSlotWaits.runId, run.id));
      return { go: false as const, reason: `the run is ${run.status}` };
    }
    if (task.status !== 'pending' && task.status !== 'executing') {
      await tx.update(taskRuns).set({ status: 'cancelled', endedAt: now }).where(eq(taskRuns.id, run.id));
      await tx.delete(runSlotWaits).where(eq(runSlotWaits.runId, run.id));
      return { go: false as const, reason: `the task is ${task.status}` };
    }
    if (ref?.ownerStatus && ref.ownerStatus !== 'active') {
      // Held by the system (paused, owner_inactive) until the owner is active again (server/tasks/holds.ts).
      await holdForInactiveOwner(tx, task, now);
      await tx.update(taskRuns).set({ status: 'cancelled', endedAt: now, error: 'owner_inactive' }).where(eq(taskRuns.id, run.id));
      await tx.delete(runSlotWaits).where(eq(runSlotWaits.runId, run.id));
      return { go: false as const, reason: `the task's owner is ${ref.ownerStatus}: the task is paused` };
    }
    const limits = await limitsFor(tx, run.accountId);
    if (!(await takeSlot(tx, run, limits.userMaxConcurrentRuns, now))) {
      return { go: false as const, wait: true as const, userId: run.userId!, reason: 'every run slot of the user is taken' };
    }
    if (task.status === 'pending') await applyChange(tx, task, plan(task, 'start', 'executing', undefined, now), 'start');
    await tx.update(taskRuns).set({ status: 'running', startedAt: now }).where(eq(taskRuns.id, run.id));
    return { go: true as const, taskId: task.id, userId: run.userId, limits: { maxModelCalls: limits.runMaxModelCalls, maxToolCalls: limits.runMaxToolCalls } };
  });
}

/**
 * The user's runs a freed slot should wake: as many of those waiting longest as the user has free
 * slots now. Ends that happen together may name the same runs; a run told twice only asks twice.
 */
export async function runsToWake(db: Db, userId: string, accountId: string): Promise<string[]> {
  const [{ userMaxConcurrentRuns }, [running]] = await Promise.all([
    limitsFor(db, accountId),
    db.select({ n: count() }).from(taskRuns).where(and(eq(taskRuns.userId, userId), eq(taskRuns.status, 'running'))),
  ]);
  const free = userMaxConcurrentRuns - (running?.n ?? 0);
  if (free < 1) return [];
  const rows = await db
    .select({ id: taskRuns.id })
    .from(runSlotWaits)
    .innerJoin(taskRuns, eq(taskRuns.id, runSlotWaits.runId))
    .where(and(eq(runSlotWaits.userId, userId), eq(taskRuns.status, 'queued')))
    .orderBy(taskRuns.createdAt, taskRuns.id)
    .limit(free);
  return rows.map((r) => r.id);
}
