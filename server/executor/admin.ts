import { and, asc, desc, eq, gte, lte, notInArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { executorRuns, executorStepLog, runStatuses } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import { AppError, conflict, notFound } from '@/server/http/errors';
import { NOTIFY_CHANNEL } from './store';

const FINISHED = ['completed', 'failed', 'cancelled'] as const;
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "90s", "30m", "2h", "7d", "1w" (or several, "1h30m") as milliseconds; null when malformed. */
export function parseAge(text: string): number | null {
  if (!/^(\d+(s|m|h|d|w))+$/.test(text)) return null;
  let ms = 0;
  for (const m of text.matchAll(/(\d+)(s|m|h|d|w)/g)) ms += Number(m[1]) * UNITS[m[2]];
  return ms;
}

export type RunFilters = { status?: string; functionId?: string; olderThan?: string; newerThan?: string; limit?: string };

/** The local counterpart of Inngest's dashboard: recent runs, newest first, by status, function and age. */
export async function listRuns(db: Db, filters: RunFilters = {}, now = new Date()) {
  const { status, functionId } = filters;
  if (status && !(runStatuses as readonly string[]).includes(status)) {
    throw new AppError(400, 'bad_request', `--status must be one of ${runStatuses.join(', ')}`);
  }
  const age = (flag: string, v: string | undefined) => {
    if (v === undefined) return null;
    const ms = parseAge(v);
    if (ms === null) throw new AppError(400, 'bad_request', `--${flag} must be a duration like 90s, 30m, 2h, 7d or 1w`);
    return new Date(now.getTime() - ms);
  };
  const olderThan = age('older-than', filters.olderThan);
  const newerThan = age('newer-than', filters.newerThan);
  const limit = filters.limit === undefined ? 50 : Number(filters.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AppError(400, 'bad_request', '--limit must be an integer from 1 to 1000');
  const rows = await db
    .select()
    .from(executorRuns)
    .where(
      and(
        status ? eq(executorRuns.status, status as (typeof runStatuses)[number]) : undefined,
        functionId ? eq(executorRuns.functionId, functionId) : undefined,
        olderThan ? lte(executorRuns.createdAt, olderThan) : undefined,
        newerThan ? gte(executorRuns.createdAt, newerThan) : undefined,
      ),
    )
    .orderBy(desc(executorRuns.createdAt))
    .limit(limit);
  return {
    runs: rows.map((r) => ({
      id: r.id,
      functionId: r.functionId,
      status: r.status,
      event: (r.event as { name?: string }).name ?? null,
      attempt: r.attempt,
      steps: r.stack.length,
      availableAt: r.availableAt.toISOString(),
      leaseOwner: r.leaseOwner,
      leaseUntil: r.leaseUntil?.toISOString() ?? null,
      createdAt: r.createdAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
      // A running run: how long it has run since its worker took it, and how long its current step has.
      ...(r.status === 'running' ? running(r.runningSince, r.stepStartedAt, now) : {}),
    })),
  };
}

/** "49m 12s", "2h 5m", "14s": a duration an operator reads at a glance. */
export function spoken(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return h ? `${h}h ${m}m` : m ? `${m}m ${sec}s` : `${sec}s`;
}

function running(since: Date | null, step: Date | null, now: Date) {
  const ran = since ? now.getTime() - since.getTime() : null;
  const stepMs = step ? now.getTime() - step.getTime() : null;
  return {
    runningSince: since?.toISOString() ?? null,
    runningFor: ran === null ? null : spoken(ran),
    runningForSeconds: ran === null ? null : Math.max(0, Math.round(ran / 1000)),
    stepRunningFor: stepMs === null ? null : spoken(stepMs),
    stepRunningForSeconds: stepMs === null ? null : Math.max(0, Math.round(stepMs / 1000)),
  };
}

/** One run with its event, output or error, and every step execution in order. */
export async function runDetail(db: Db, id: string) {
  const [run] = await db.select().from(executorRuns).where(eq(executorRuns.id, id));
  if (!run) throw notFound('Run');
  const steps = await db.select().from(executorStepLog).where(eq(executorStepLog.runId, id)).orderBy(asc(executorStepLog.createdAt));
  return {
    run: {
      ...run,
      availableAt: run.availableAt.toISOString(),
      createdAt: run.createdAt.toISOString(),
      updatedAt: run.updatedAt.toISOString(),
      finishedAt: run.finishedAt?.toISOString() ?? null,
      leaseUntil: run.leaseUntil?.toISOString() ?? null,
      runningSince: run.runningSince?.toISOString() ?? null,
      stepStartedAt: run.stepStartedAt?.toISOString() ?? null,
    },
    steps: steps.map((s) => ({ stepId: s.stepId, name: s.name, op: s.op, attempt: s.attempt, data: s.data, at: s.createdAt.toISOString() })),
  };
}

/**
 * Cancels an open run. A worker driving it right now loses it: its later writes and checkpoints
 * are refused (they need the lease this clears), so no further step is recorded.
 */
export async function cancelRun(db: Db, id: string, now = new Date()) {
  const [run] = await db.select({ status: executorRuns.status }).from(executorRuns).where(eq(executorRuns.id, id));
  if (!run) throw notFound('Run');
  const [cancelled] = await db
    .update(executorRuns)
    .set({ status: 'cancelled', finishedAt: now, wait: null, leaseOwner: null, leaseUntil: null, error: { name: 'Cancelled', message: 'Cancelled by an operator' } })
    .where(and(eq(executorRuns.id, id), notInArray(executorRuns.status, [...FINISHED])))
    .returning({ id: executorRuns.id });
  if (!cancelled) throw conflict(`The run is already ${run.status}`, { status: run.status });
  await db.insert(executorStepLog).values({ runId: id, stepId: 'operator', name: 'cancel', op: 'Cancelled', attempt: 0, data: null });
  return { id, status: 'cancelled' as const, previous: run.status };
}

/**
 * Runs a failed (or cancelled) run again from its failed step: the steps that succeeded keep their
 * stored results and do not run again; the steps stored as failures are forgotten, so they run
 * anew, with a fresh set of attempts.
 */
export async function replayRun(db: Db, id: string, now = new Date()) {
  const [run] = await db.select().from(executorRuns).where(eq(executorRuns.id, id));
  if (!run) throw notFound('Run');
  if (run.status !== 'failed' && run.status !== 'cancelled') throw conflict(`Only a failed or cancelled run can be replayed; this one is ${run.status}`, { status: run.status });
  const failed = Object.entries(run.steps).filter(([, r]) => (r as { type?: string }).type === 'error').map(([k]) => k);
  const steps = Object.fromEntries(Object.entries(run.steps).filter(([k]) => !failed.includes(k)));
  const stack = run.stack.filter((s) => !failed.includes(s));
  const [replayed] = await db
    .update(executorRuns)
    .set({ status: 'queued', steps, stack, attempt: 0, wait: null, error: null, output: null, finishedAt: null, availableAt: now, leaseOwner: null, leaseUntil: null })
    .where(and(eq(executorRuns.id, id), eq(executorRuns.status, run.status)))
    .returning({ id: executorRuns.id });
  if (!replayed) throw conflict('The run changed meanwhile; try again');
  await db.insert(executorStepLog).values({ id: newId(), runId: id, stepId: 'operator', name: 'replay', op: 'Replayed', attempt: 0, data: { forgotten: failed, kept: stack.length } });
  await db.execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, '')`);
  return { id, status: 'queued' as const, previous: run.status, keptSteps: stack.length, rerunSteps: failed.length };
}
