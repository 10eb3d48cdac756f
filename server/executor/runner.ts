import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { executorFunctions, executorRuns, executorStepLog, type ExecutorRunRow } from '@/db/schema';
import { callFunction, type Op } from './protocol';
import { NOTIFY_CHANNEL, ingestEvents, maxAttempts, resolveWait, startRun, type FunctionConfig } from './store';

type Json = Record<string, unknown>;
export type Clock = { now: () => Date };
export type RunnerDeps = { db: Db; signingKey: string; clock: Clock; owner: string; leaseMs: number };

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

async function log(db: Db, runId: string, op: Op, attempt: number) {
  await db.insert(executorStepLog).values({ runId, stepId: op.id, name: op.displayName ?? op.name ?? null, op: op.op, attempt, data: op.error ?? op.data ?? null });
}

/**
 * Drives one claimed run as far as it can go now: calls the serve endpoint, stores each
 * step's result, and stops when the run finishes, sleeps, waits or must retry later.
 */
export async function driveRun(deps: RunnerDeps, claimed: ExecutorRunRow): Promise<void> {
  const { db, clock } = deps;
  let run = claimed;
  const [fn] = await db.select().from(executorFunctions).where(eq(executorFunctions.id, run.functionId));
  if (!fn) return finish(deps, run, 'failed', null, { name: 'FunctionNotFound', message: `No function ${run.functionId} is registered` });
  const cfg = fn.config as unknown as FunctionConfig;
  const max = maxAttempts(cfg);
  const steps: Record<string, Json> = { ...run.steps };
  const stack = [...run.stack];

  // A sleep that ended, or a wait that timed out, resumes with null.
  if (run.wait) {
    const w = run.wait as { stepId: string };
    steps[w.stepId] = { type: 'data', data: null };
    stack.push(w.stepId);
  }
  let attempt = run.attempt;
  const save = async (set: Partial<typeof executorRuns.$inferInsert>) => {
    [run] = await db
      .update(executorRuns)
      .set({ steps, stack, attempt, wait: null, ...set })
      .where(eq(executorRuns.id, run.id))
      .returning();
  };
  const call = (stepId: string, disableImmediate: boolean) =>
    callFunction({
      url: fn.url,
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
    });
  const record = async (op: Op, result: Json) => {
    steps[op.id] = result;
    stack.push(op.id);
    await log(db, run.id, op, attempt);
    attempt = 0;
  };
  /** A failed attempt: retry later with backoff, or give up. */
  const retryOrFail = async (error: Json, retryAfter: string | null, retriable: boolean) => {
    if (retriable && attempt + 1 < max) {
      attempt++;
      await save({ status: 'queued', availableAt: new Date(clock.now().getTime() + backoffMs(attempt - 1, retryAfter, clock.now())), leaseOwner: null, leaseUntil: null });
      return;
    }
    await finish(deps, run, 'failed', null, error, { steps, stack, attempt });
  };

  let queue: { stepId: string; disableImmediate: boolean }[] = [{ stepId: 'step', disableImmediate: false }];
  while (queue.length) {
    const { stepId, disableImmediate } = queue.shift()!;
    const res = await call(stepId, disableImmediate);
    if (res.kind === 'done') return finish(deps, run, 'completed', res.output, null, { steps, stack, attempt });
    if (res.kind === 'error') return retryOrFail(res.error, res.retryAfter, res.retriable);

    const planned = res.ops.filter((o) => o.op === 'StepPlanned');
    if (planned.length) {
      // Parallel steps: one call per step; with more than one, each runs alone.
      queue = planned.map((o) => ({ stepId: o.id, disableImmediate: planned.length > 1 }));
      continue;
    }
    for (const op of res.ops) {
      if (op.op === 'StepRun') {
        await record(op, { type: 'data', data: op.data ?? null });
      } else if (op.op === 'StepFailed') {
        await record(op, { type: 'error', error: (op.error ?? op.data) as Json });
      } else if (op.op === 'StepError') {
        await log(db, run.id, op, attempt);
        return retryOrFail((op.error ?? {}) as Json, res.retryAfter, !res.noRetry);
      } else if (op.op === 'Sleep') {
        await log(db, run.id, op, attempt);
        return save({ status: 'sleeping', wait: { kind: 'sleep', stepId: op.id }, availableAt: sleepUntil(String(op.name), clock.now()), leaseOwner: null, leaseUntil: null });
      } else if (op.op === 'WaitForEvent') {
        await log(db, run.id, op, attempt);
        const opts = op.opts ?? {};
        return save({
          status: 'waiting',
          wait: { kind: 'event', stepId: op.id, event: op.name, if: opts.if ?? null, since: Date.now() },
          availableAt: timeoutAt(opts.timeout, clock.now()),
          leaseOwner: null,
          leaseUntil: null,
        });
      } else if (op.op === 'InvokeFunction') {
        await log(db, run.id, op, attempt);
        const opts = (op.opts ?? {}) as { function_id?: string; payload?: { data?: Json }; timeout?: string };
        const [target] = await db.select().from(executorFunctions).where(eq(executorFunctions.id, String(opts.function_id)));
        if (!target) {
          await record(op, { type: 'error', error: { name: 'Error', message: `No function ${opts.function_id} to invoke` } });
          continue;
        }
        await save({ status: 'waiting', wait: { kind: 'invoke', stepId: op.id }, availableAt: timeoutAt(opts.timeout, clock.now()), leaseOwner: null, leaseUntil: null });
        await startRun(db, target, { name: 'inngest/function.invoked', data: opts.payload?.data ?? {}, ts: clock.now().getTime(), id: `invoke-${run.id}-${op.id}` }, clock.now(), run.id);
        await db.execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, '')`);
        return;
      } else {
        await record(op, { type: 'error', error: { name: 'UnsupportedOp', message: `${op.op} is not supported by the built-in executor` } });
      }
    }
    await save({ leaseUntil: new Date(clock.now().getTime() + deps.leaseMs) });
    if (queue.length === 0) queue = [{ stepId: 'step', disableImmediate: false }];
  }
}

/** Ends a run; a failure emits inngest/function.failed (onFailure handlers), and an invoked run answers its parent. */
async function finish(deps: RunnerDeps, run: ExecutorRunRow, status: 'completed' | 'failed', output: unknown, error: Json | null, state: Partial<typeof executorRuns.$inferInsert> = {}) {
  const { db, clock } = deps;
  const now = clock.now();
  await db
    .update(executorRuns)
    .set({ ...state, status, output: output ?? null, error, finishedAt: now, wait: null, leaseOwner: null, leaseUntil: null })
    .where(eq(executorRuns.id, run.id));
  if (status === 'failed') {
    await ingestEvents(db, [{ name: 'inngest/function.failed', data: { function_id: run.functionId, run_id: run.id, error: error ?? {}, event: run.event } }], now);
  }
  if (run.parentRunId) {
    const [parent] = await db.select().from(executorRuns).where(eq(executorRuns.id, run.parentRunId));
    if (parent && parent.status === 'waiting' && (parent.wait as { kind?: string } | null)?.kind === 'invoke') {
      await resolveWait(db, parent, status === 'completed' ? { type: 'data', data: output ?? null } : { type: 'error', error: error ?? {} }, now);
      await db.execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, '')`);
    }
  }
}
