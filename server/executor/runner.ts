import { SpanStatusCode, trace } from '@opentelemetry/api';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { logger } from '@/server/logger';
import { executorFunctions, executorRuns, executorStepLog, type ExecutorFunctionRow, type ExecutorRunRow } from '@/db/schema';
import type { ClaimedRun } from './claim';
import type { Finish, LogEntry, RunWriter } from './run-writer';
import type { CallGuard } from './call-guard';
import { callFunction, type Op } from './protocol';
import { DEFAULT_CALL_SLACK_MS, longestStepDeadlineMs, type StepDeadlineTable } from './step-deadlines';
import { appendSteps } from './steps-sql';
import { NOTIFY_CHANNEL, ingestEvents, maxAttempts, resolveWait, startRun, type FunctionConfig } from './store';

type Json = Record<string, unknown>;
export type Clock = { now: () => Date };
export type RunnerDeps = {
  db: Db;
  signingKey: string;
  clock: Clock;
  owner: string;
  leaseMs: number;
  /** false: calls never let the SDK checkpoint (one step per call, the plain protocol). */
  checkpointing?: boolean;
  /** True once the executor stops: no further call starts, the run is handed back. */
  stopping?: () => boolean;
  /**
   * This process's own serve endpoint (from configuration). Every process of a deployment serves
   * the same functions, and the URL stored at registration is the last registering process's:
   * calling it would send a survivor's calls to a dead process. Without it, the stored URL.
   */
  serveUrl?: string;
  /** Writes runs' ends in group commits, claiming each worker's next run in the same statement. */
  writer: RunWriter;
  /** Holds each call to its deadline and renews the leases of the runs whose calls are in flight (call-guard.ts). */
  calls: CallGuard;
  /** Step deadlines by function (step-deadlines.ts): a call may run for its function's longest plus `deadlineSlackMs`. */
  deadlines?: StepDeadlineTable;
  deadlineSlackMs?: number;
  /** Told when this worker makes a run runnable again at a later time (a sleep, a wait's timeout, a retry): the executor's clock wakes for it. */
  wakeAt?: (at: Date) => void;
};

/** Backoff before retry n (0-based): 1 s, 2 s, 4 s … capped at 5 minutes, or what Retry-After asks. */
export function backoffMs(attempt: number, retryAfter: string | null, now: Date): number {
  if (retryAfter) {
    const secs = Number(retryAfter);
    if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.max(0, at - now.getTime());
  }
  return Math.min(300_000, 1000 * 2 ** attempt);
}

/** Parses a Sleep op's `name`: a duration like "2s", "1h30m", "500ms", or an ISO date. */
export function sleepUntil(name: string, now: Date): Date {
  const iso = Date.parse(name);
  if (!/^\d+(ms|s|m|h|d|w)/.test(name) && Number.isFinite(iso)) return new Date(iso);
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
  let ms = 0;
  for (const m of name.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)) ms += Number(m[1]) * units[m[2]];
  return new Date(now.getTime() + ms);
}

const timeoutAt = (timeout: unknown, now: Date) => (typeof timeout === 'string' ? sleepUntil(timeout, now) : new Date(now.getTime() + 365 * 86_400_000));

type RunChange = Partial<typeof executorRuns.$inferInsert>;

/** A step execution for the log. */
const logEntry = (op: Op, attempt: number): LogEntry => ({
  step_id: op.id,
  name: op.displayName ?? op.name ?? null,
  op: op.op,
  attempt,
  data: (op.error ?? op.data ?? null) as Json | null,
});

/** The run is no longer this worker's (its lease was taken over, or it was cancelled): stop driving it. */
export class LostLease extends Error {
  constructor(runId: string) {
    super(`run ${runId} is no longer leased to this worker`);
  }
}

/**
 * The run's new state together with the step executions that led to it, in one statement: a
 * round trip per write, and a logged step is never without its stored result. Step results are
 * appended (steps the SDK checkpointed meanwhile stay), and only while this worker still holds the
 * run's lease: a worker whose lease lapsed, or whose run was cancelled, writes nothing.
 */
async function persist(deps: RunnerDeps, runId: string, change: RunChange, entries: LogEntry[]): Promise<ExecutorRunRow> {
  const { db } = deps;
  // clock_timestamp() keeps several rows written by one statement in order.
  const logs = entries.map((l) => ({ runId, stepId: l.step_id, name: l.name, op: l.op, attempt: l.attempt, data: l.data, createdAt: sql`clock_timestamp()` }));
  const fenced = and(eq(executorRuns.id, runId), eq(executorRuns.leaseOwner, deps.owner), eq(executorRuns.status, 'running'));
  const update = (q: Pick<Db, 'update'>) => q.update(executorRuns).set(change).where(fenced).returning();
  let rows: ExecutorRunRow[];
  if (!logs.length) rows = await update(db);
  else {
    const logged = db.$with('logged').as(db.insert(executorStepLog).values(logs).returning({ id: executorStepLog.id }));
    rows = await update(db.with(logged));
  }
  if (!rows[0]) throw new LostLease(runId);
  return rows[0];
}

/**
 * Drives one claimed run as far as it can go now: calls the serve endpoint, stores each
 * step's result, and stops when the run finishes, sleeps, waits or must retry later. Within one
 * call the SDK may run several steps, checkpointing each to the ingress (`run-writer.ts`), which
 * stores them as they come; the call's answer then carries only what is left. A run that ends
 * claims the worker's next run with the same write: that run is returned.
 */
export async function driveRun(deps: RunnerDeps, claimed: ExecutorRunRow, registered?: ExecutorFunctionRow | null): Promise<ClaimedRun | null> {
  try {
    return (await drive(deps, claimed, registered)) ?? null;
  } catch (err) {
    if (err instanceof LostLease) return null;
    throw err;
  }
}

async function drive(deps: RunnerDeps, claimed: ExecutorRunRow, registered?: ExecutorFunctionRow | null): Promise<ClaimedRun | null | void> {
  const { db, clock } = deps;
  let run = claimed;
  // The claim reads the function with the run; read it here only when it did not.
  const fn = registered === undefined ? (await db.select().from(executorFunctions).where(eq(executorFunctions.id, run.functionId)))[0] : registered;
  if (!fn) return finish(deps, run, { status: 'failed', output: null, error: { name: 'FunctionNotFound', message: `No function ${run.functionId} is registered` }, steps: {}, ids: [], logs: [], attempt: run.attempt });
  const cfg = fn.config as unknown as FunctionConfig;
  const max = maxAttempts(cfg);
  let steps: Record<string, Json> = { ...run.steps };
  let stack = [...run.stack];
  /** Results this worker learnt since its last write; they are appended to the stored memo. */
  let fresh: Record<string, Json> = {};
  let freshIds: string[] = [];
  const learn = (id: string, result: Json) => {
    steps[id] = result;
    stack.push(id);
    fresh[id] = result;
    freshIds.push(id);
  };

  // A sleep that ended, or a wait that timed out, resumes with null.
  if (run.wait) learn((run.wait as { stepId: string }).stepId, { type: 'data', data: null });
  let attempt = run.attempt;
  /** Step executions not yet written: they go with the next write of the run's state. */
  const logs: LogEntry[] = [];
  const log = (op: Op) => void logs.push(logEntry(op, attempt));
  /** The state to write: new results appended, the rest as this worker knows it. */
  const state = (): RunChange => {
    const s = { ...appendSteps(fresh, freshIds), attempt } as unknown as RunChange;
    fresh = {};
    freshIds = [];
    return s;
  };
  const save = async (set: RunChange) => {
    // Still running: the next step begins now (the oldest running step's age is measured from it).
    const begins = set.status === undefined ? { stepStartedAt: new Date() } : {};
    run = await persist(deps, run.id, { ...state(), wait: null, ...begins, ...set }, logs.splice(0));
    if (set.status && set.status !== 'running' && set.availableAt instanceof Date) deps.wakeAt?.(set.availableAt);
    // The stored memo includes the steps the SDK checkpointed during the last call.
    steps = { ...run.steps };
    stack = [...run.stack];
  };
  /** How long one call of this function may run (step-deadlines.ts): past it, the attempt fails. */
  const callDeadlineMs = longestStepDeadlineMs(deps.deadlines ?? {}, fn.id, fn.appName) + (deps.deadlineSlackMs ?? DEFAULT_CALL_SLACK_MS);
  const call = async (stepId: string, disableImmediate: boolean) => {
    // One span per call of the app (an engine step, or several when the SDK checkpoints); a no-op
    // unless the process registered a tracer (server/http/tracing.ts, OTEL_* set).
    const span = trace.getTracer('steward-executor').startSpan('engine.call', {
      attributes: { 'steward.function': fn.id, 'steward.run_id': run.id, 'steward.step': stepId || '(start)', 'steward.attempt': attempt },
    });
    try {
      // The app may work on one step for minutes (a model call): the lease is renewed meanwhile, up
      // to the call's deadline (call-guard.ts).
      const url = deps.serveUrl ?? fn.url;
      return await deps.calls.guard({ runId: run.id, functionId: fn.id, deadlineMs: callDeadlineMs, url }, (signal) =>
        callFunction({
          url,
          functionId: fn.id,
          stepId,
          signingKey: deps.signingKey,
          event: run.event,
          steps,
          stack,
          runId: run.id,
          attempt,
          maxAttempts: max,
          disableImmediateExecution: disableImmediate,
          leaseOwner: deps.checkpointing === false ? null : deps.owner,
          signal,
        }),
      );
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
      throw e;
    } finally {
      span.end();
    }
  };
  const record = (op: Op, result: Json) => {
    learn(op.id, result);
    log(op);
    attempt = 0;
  };
  const end = (status: 'completed' | 'failed', output: unknown, error: Json | null) => {
    const ended = { status, output, error, steps: fresh, ids: freshIds, logs: logs.splice(0), attempt };
    fresh = {};
    freshIds = [];
    return finish(deps, run, ended);
  };
  /** A failed attempt: retry later with backoff, or give up. */
  const retryOrFail = async (error: Json, retryAfter: string | null, retriable: boolean) => {
    if (retriable && attempt + 1 < max) {
      attempt++;
      await save({ status: 'queued', availableAt: new Date(clock.now().getTime() + backoffMs(attempt - 1, retryAfter, clock.now())), leaseOwner: null, leaseUntil: null });
      return;
    }
    await end('failed', null, error);
  };

  let queue: { stepId: string; disableImmediate: boolean }[] = [{ stepId: 'step', disableImmediate: false }];
  let calls = 0;
  while (queue.length) {
    if (calls++ > 0 && deps.stopping?.()) {
      // Shutting down between calls: hand the run back now rather than start another step.
      await save({ status: 'queued', availableAt: clock.now(), leaseOwner: null, leaseUntil: null });
      await db.execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, '')`);
      return;
    }
    const { stepId, disableImmediate } = queue.shift()!;
    const res = await call(stepId, disableImmediate);
    if (res.kind === 'done') return end('completed', res.output, null);
    if (res.kind === 'error') {
      // A call abandoned at its deadline is in the step log (its run shows why it waits to retry).
      if (res.error.name === 'StepDeadlineExceeded') logs.push({ step_id: stepId, name: 'deadline', op: 'StepError', attempt, data: res.error });
      return retryOrFail(res.error, res.retryAfter, res.retriable);
    }

    const planned = res.ops.filter((o) => o.op === 'StepPlanned');
    if (planned.length) {
      // Parallel steps (or the SDK's checkpointing time was up): one call per step; with more than
      // one, each runs alone. The steps checkpointed meanwhile are read back before the next call.
      queue = planned.map((o) => ({ stepId: o.id, disableImmediate: planned.length > 1 }));
      if (stepId === 'step' && !disableImmediate) await save({ leaseUntil: new Date(clock.now().getTime() + deps.leaseMs) });
      continue;
    }
    for (const op of res.ops) {
      if (op.op === 'StepRun') {
        record(op, { type: 'data', data: op.data ?? null });
      } else if (op.op === 'StepFailed') {
        record(op, { type: 'error', error: (op.error ?? op.data) as Json });
      } else if (op.op === 'RunComplete') {
        // A checkpointing call ends with the function's return value as an op.
        return end('completed', op.data ?? null, null);
      } else if (op.op === 'StepError') {
        log(op);
        return retryOrFail((op.error ?? {}) as Json, res.retryAfter, !res.noRetry);
      } else if (op.op === 'Sleep') {
        log(op);
        return save({ status: 'sleeping', wait: { kind: 'sleep', stepId: op.id }, availableAt: sleepUntil(String(op.name), clock.now()), leaseOwner: null, leaseUntil: null });
      } else if (op.op === 'WaitForEvent') {
        log(op);
        const opts = op.opts ?? {};
        return save({
          status: 'waiting',
          wait: { kind: 'event', stepId: op.id, event: op.name, if: opts.if ?? null, since: Date.now() },
          availableAt: timeoutAt(opts.timeout, clock.now()),
          leaseOwner: null,
          leaseUntil: null,
        });
      } else if (op.op === 'InvokeFunction') {
        log(op);
        const opts = (op.opts ?? {}) as { function_id?: string; payload?: { data?: Json }; timeout?: string };
        const [target] = await db.select().from(executorFunctions).where(eq(executorFunctions.id, String(opts.function_id)));
        if (!target) {
          record(op, { type: 'error', error: { name: 'Error', message: `No function ${opts.function_id} to invoke` } });
          continue;
        }
        await save({ status: 'waiting', wait: { kind: 'invoke', stepId: op.id }, availableAt: timeoutAt(opts.timeout, clock.now()), leaseOwner: null, leaseUntil: null });
        await startRun(db, target, { name: 'inngest/function.invoked', data: opts.payload?.data ?? {}, ts: clock.now().getTime(), id: `invoke-${run.id}-${op.id}` }, clock.now(), run.id);
        await db.execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, '')`);
        return;
      } else {
        record(op, { type: 'error', error: { name: 'UnsupportedOp', message: `${op.op} is not supported by the built-in executor` } });
      }
    }
    await save({ leaseUntil: new Date(clock.now().getTime() + deps.leaseMs) });
    if (queue.length === 0) queue = [{ stepId: 'step', disableImmediate: false }];
  }
}

/** What the run writer needs of a run's end beyond who writes it and when. */
type Ending = Omit<Finish, 'runId' | 'owner' | 'finishedAt' | 'next'>;

/**
 * Ends a run (through the group-committed writer, which also claims the worker's next run unless
 * the executor is stopping); a failure emits inngest/function.failed (onFailure handlers), and an
 * invoked run answers its parent. Returns the next run, if one was claimed.
 */
async function finish(deps: RunnerDeps, run: ExecutorRunRow, ending: Ending): Promise<ClaimedRun | null> {
  const { db, clock } = deps;
  const now = clock.now();
  const claimNext = !deps.stopping?.();
  const { stored, next } = await deps.writer.finish({
    runId: run.id,
    owner: deps.owner,
    ...ending,
    finishedAt: now,
    next: claimNext ? { owner: deps.owner, now, leaseMs: deps.leaseMs } : undefined,
  });
  // Not stored: the run was taken over or cancelled meanwhile; its end is not this worker's to tell.
  if (!stored) return next;
  try {
    if (ending.status === 'failed') {
      await ingestEvents(db, [{ name: 'inngest/function.failed', data: { function_id: run.functionId, run_id: run.id, error: ending.error ?? {}, event: run.event } }], now);
    }
    if (run.parentRunId) {
      const [parent] = await db.select().from(executorRuns).where(eq(executorRuns.id, run.parentRunId));
      if (parent && parent.status === 'waiting' && (parent.wait as { kind?: string } | null)?.kind === 'invoke') {
        await resolveWait(db, parent, ending.status === 'completed' ? { type: 'data', data: ending.output ?? null } : { type: 'error', error: ending.error ?? {} }, now);
        await db.execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, '')`);
      }
    }
  } catch (err) {
    // The run's end is stored; the next run is this worker's to drive (dropping it would leave it
    // leased and idle until its lease lapsed).
    logger.error({ err, runId: run.id }, 'executor: telling of a run\'s end failed');
  }
  return next;
}
