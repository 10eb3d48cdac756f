import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { engineHandoffs, taskRuns, type TaskRow, type TaskRunRow } from '@/db/schema';

/*
 * Run history. queueRun records a run `queued` and hands it to the registered dispatcher, which
 * starts it (the agent runtime's durable function, registered from server/compose/engine-handovers.ts); the
 * runtime moves the row to running/finished/failed itself. With no dispatcher registered the
 * run only stays queued: this area cannot import the runtime or Inngest (they sit above it).
 *
 * Every queued run also gets its outbox row (engine_handoffs) in the same transaction: the
 * dispatcher stamps it once the engine took the event, and a run whose handover was lost (the
 * process died between the commit and the send, or the send failed) is sent by the sweep
 * (inngest/functions/engine-handoff-sweep.ts). A run is never left queued for good.
 */

type Trigger = TaskRunRow['trigger'];

/**
 * A queued run as the dispatcher receives it. `transactionId` is the Postgres transaction that
 * recorded it (pg_current_xact_id): the dispatcher starts the run only once that transaction has
 * committed, so a rolled-back process call never starts anything.
 */
export type QueuedRun = { taskId: string; runId: string; accountId: string; transactionId: string };

/** Starts a queued run; must not throw or wait (it is called inside the caller's transaction). */
export type RunDispatcher = (run: QueuedRun) => void;

let dispatcher: RunDispatcher | null = null;

/** Called once at start-up by the entry floor (server/compose/engine-handovers.ts). */
export function registerRunDispatcher(fn: RunDispatcher | null): void {
  dispatcher = fn;
}

/** Records a queued run of the task; its id is the executionId the API returns. The dispatcher starts it once the caller commits. */
/** What a run is queued from: the task's tier, owner and taint (a tainted task's runs start tainted). */
type QueuedFrom = Pick<TaskRow, 'id' | 'accountId' | 'modelTier' | 'userId' | 'tainted' | 'taintSources'>;

export async function queueRun(tx: Tx, task: QueuedFrom, trigger: Trigger): Promise<TaskRunRow> {
  const [run] = await queueRuns(tx, [task], trigger);
  return run!;
}

/** The same for many tasks in one statement (a minute's workflow firings). */
export async function queueRuns(tx: Tx, list: readonly QueuedFrom[], trigger: Trigger): Promise<TaskRunRow[]> {
  if (!list.length) return [];
  const runs = await tx
    .insert(taskRuns)
    .values(
      list.map((task) => ({
        taskId: task.id,
        accountId: task.accountId,
        userId: task.userId,
        trigger,
        modelTier: task.modelTier,
        tainted: task.tainted,
        taintSources: task.taintSources,
      })),
    )
    .returning();
  await tx.insert(engineHandoffs).values(runs.map((run) => ({ id: run.id, kind: 'task_run' as const, accountId: run.accountId, data: runEventData(run) })));
  if (dispatcher) {
    const { rows } = await tx.execute<{ xid: string }>(sql`SELECT pg_current_xact_id()::text AS xid`);
    for (const run of runs) dispatcher({ taskId: run.taskId, runId: run.id, accountId: run.accountId, transactionId: rows[0].xid });
  }
  return runs;
}

/** The engine event's data for a run (steward/task.run-requested): the same from the dispatcher and the sweep. */
export const runEventData = (run: Pick<TaskRunRow, 'id' | 'taskId' | 'accountId'>) => ({ taskId: run.taskId, runId: run.id, accountId: run.accountId });

/** The queued or running run of a task, if any: a message during a run goes to it, and there is never a second one. */
export async function openRun(tx: Tx, taskId: string): Promise<TaskRunRow | null> {
  const [run] = await tx
    .select()
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, taskId), inArray(taskRuns.status, ['queued', 'running'])))
    .limit(1);
  return run ?? null;
}

/**
 * A run for a task that just woke (alarm, subtasks ended) or started on its own (schedule), unless
 * one is already queued: that one starts the task. A run that is still `running` does not count:
 * it already left its loop when the task stopped executing (it is only closing), so it never
 * picks the task up again, and the new run waits for it (one run per task at a time).
 */
export async function queueWakeRun(tx: Tx, task: QueuedFrom, trigger: Trigger): Promise<TaskRunRow> {
  const [queued] = await tx
    .select()
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, task.id), eq(taskRuns.status, 'queued')))
    .limit(1);
  return queued ?? queueRun(tx, task, trigger);
}

/** Stop and mark-done end the current run: a queued one never starts, a running one is told to stop by its status. */
export async function cancelOpenRuns(tx: Tx, taskId: string): Promise<void> {
  await tx
    .update(taskRuns)
    .set({ status: 'cancelled', endedAt: new Date() })
    .where(and(eq(taskRuns.taskId, taskId), inArray(taskRuns.status, ['queued', 'running'])));
}

/** Whether a run has ever started: from then on the task's modelTier is fixed. */
export async function hasStarted(tx: Tx, taskId: string): Promise<boolean> {
  const [run] = await tx
    .select({ startedAt: taskRuns.startedAt })
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, taskId), isNotNull(taskRuns.startedAt)))
    .limit(1);
  return run !== undefined;
}
