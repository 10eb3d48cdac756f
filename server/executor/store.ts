import { and, eq, inArray, lte, notInArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { executorCrons, executorEvents, executorFunctions, executorRuns, type ExecutorFunctionRow, type ExecutorRunRow } from '@/db/schema';
import { keyValue, matches } from './cel';
import { nextCronFire, type CronSpread } from './cron-schedule';

type Json = Record<string, unknown>;
export type FunctionConfig = {
  id: string;
  name?: string;
  triggers?: Array<{ event?: string; expression?: string; cron?: string }>;
  steps?: Record<string, { runtime?: { url?: string }; retries?: { attempts?: number } }>;
  concurrency?: { limit: number; key?: string } | Array<{ limit: number; key?: string }>;
  cancel?: Array<{ event: string; if?: string; timeout?: string }>;
};

export const NOTIFY_CHANNEL = 'steward_executor';
const FINISHED = ['completed', 'failed', 'cancelled'] as const;

export const maxAttempts = (cfg: FunctionConfig) => (cfg.steps?.step?.retries?.attempts ?? 3) + 1;
export const concurrencyOf = (cfg: FunctionConfig) => (Array.isArray(cfg.concurrency) ? cfg.concurrency[0] : cfg.concurrency) ?? null;

async function notify(db: Db) {
  await db.execute(sql`SELECT pg_notify(${NOTIFY_CHANNEL}, '')`);
}

/** Stores what the SDK registered and (re)plans its cron triggers. */
export async function registerFunctions(db: Db, body: { appName: string; url: string; functions: FunctionConfig[] }, now: Date, spread?: CronSpread) {
  for (const fn of body.functions) {
    const url = fn.steps?.step?.runtime?.url?.split('?')[0] ?? body.url;
    await db
      .insert(executorFunctions)
      .values({ id: fn.id, appName: body.appName, url, config: fn as unknown as Json })
      .onConflictDoUpdate({ target: executorFunctions.id, set: { url, appName: body.appName, config: fn as unknown as Json, updatedAt: now } });
    const crons = (fn.triggers ?? []).filter((t) => t.cron).map((t) => t.cron!);
    await db.delete(executorCrons).where(and(eq(executorCrons.functionId, fn.id), crons.length ? notInArray(executorCrons.cron, crons) : undefined));
    for (const cron of crons) {
      const next = nextCronFire(spread, fn.id, cron, now);
      if (next) await db.insert(executorCrons).values({ functionId: fn.id, cron, nextAt: next }).onConflictDoNothing();
    }
  }
  return { ok: true, modified: true };
}

export type IncomingEvent = { id?: string; name: string; data?: Json; ts?: number; user?: Json };

/**
 * Records events and does what each one causes: starts runs of functions it triggers,
 * resumes runs waiting for it, and cancels runs it cancels. A batch costs a few statements, not
 * a few per event: the events are one insert, the runs they start another.
 */
export async function ingestEvents(db: Db, events: IncomingEvent[], now: Date): Promise<string[]> {
  if (!events.length) return [];
  const functions = await db.select().from(executorFunctions);
  const rows = await db
    .insert(executorEvents)
    .values(events.map((e) => ({ name: e.name, data: e.data ?? {}, ts: e.ts ?? now.getTime() })))
    .returning();
  let toStart: Array<{ fn: ExecutorFunctionRow; event: Json }> = [];
  const flushStarts = async () => {
    if (!toStart.length) return;
    await startRuns(db, toStart, now);
    toStart = [];
  };
  // Runs that begin waiting later missed these events anyway (only events after the wait began count).
  const waiting = await waitingFor(db, [...new Set(events.map((e) => e.name))]);
  for (const [i, e] of events.entries()) {
    const row = rows[i];
    const event = { id: row.id, name: row.name, data: row.data, ts: row.ts, ...(e.user ? { user: e.user } : {}) };
    for (const fn of functions) {
      const cfg = fn.config as unknown as FunctionConfig;
      for (const t of cfg.triggers ?? []) {
        if (t.event === e.name && matches(t.expression, { event })) toStart.push({ fn, event });
      }
      for (const c of cfg.cancel ?? []) {
        if (c.event !== e.name) continue;
        // Runs started by an earlier event of this batch can be cancelled by a later one.
        await flushStarts();
        await cancelMatching(db, fn.id, c.if, event, now);
      }
    }
    await resumeWaiting(db, waiting, event, row.receivedAt, now);
  }
  await flushStarts();
  await notify(db);
  return rows.map((r) => r.id);
}

const concurrencyKeyOf = (fn: ExecutorFunctionRow, event: Json) => {
  const c = concurrencyOf(fn.config as unknown as FunctionConfig);
  return c ? `${fn.id}:${c.key ? keyValue(c.key, { event }) : ''}` : null;
};

export async function startRun(db: Db, fn: ExecutorFunctionRow, event: Json, now: Date, parentRunId: string | null = null) {
  const [run] = await db
    .insert(executorRuns)
    .values({ functionId: fn.id, event, concurrencyKey: concurrencyKeyOf(fn, event), availableAt: now, parentRunId })
    .returning();
  return run;
}

/** Several runs in one statement. */
async function startRuns(db: Db, runs: Array<{ fn: ExecutorFunctionRow; event: Json }>, now: Date) {
  await db.insert(executorRuns).values(runs.map(({ fn, event }) => ({ functionId: fn.id, event, concurrencyKey: concurrencyKeyOf(fn, event), availableAt: now })));
}

async function cancelMatching(db: Db, functionId: string, expression: string | undefined, event: Json, now: Date) {
  const open = await db
    .select()
    .from(executorRuns)
    .where(and(eq(executorRuns.functionId, functionId), notInArray(executorRuns.status, [...FINISHED])));
  for (const run of open) {
    if (matches(expression, { event, async: run.event })) {
      await db
        .update(executorRuns)
        .set({ status: 'cancelled', finishedAt: now, wait: null, leaseOwner: null, leaseUntil: null })
        .where(eq(executorRuns.id, run.id));
    }
  }
}

type WaitingRun = ExecutorRunRow & { resumed?: boolean };

/** The runs waiting for any of these event names: one index lookup for a whole batch of events. */
async function waitingFor(db: Db, names: string[]): Promise<WaitingRun[]> {
  return db
    .select()
    .from(executorRuns)
    .where(and(eq(executorRuns.status, 'waiting'), inArray(sql`(${executorRuns.wait} ->> 'event')`, names), sql`${executorRuns.wait}->>'kind' = 'event'`));
}

/** Runs waiting for this event whose `if` holds get it as their step's result (each run once per batch). */
async function resumeWaiting(db: Db, waiting: WaitingRun[], event: Json, receivedAt: Date, now: Date): Promise<void> {
  for (const run of waiting) {
    const wait = run.wait as { stepId: string; event: string; if?: string; since: number };
    if (run.resumed || wait.event !== event.name) continue;
    // Only events that arrive after the wait began count (arrival is real time, like the event's ts).
    if (receivedAt.getTime() < wait.since) continue;
    if (!matches(wait.if, { event, async: run.event })) continue;
    await resolveWait(db, run, { type: 'data', data: event }, now);
    run.resumed = true;
  }
}

/** Gives a waiting or sleeping run its step result and makes it runnable now. */
export async function resolveWait(db: Db, run: ExecutorRunRow, result: Json, now: Date) {
  const stepId = (run.wait as { stepId: string }).stepId;
  await db
    .update(executorRuns)
    .set({
      status: 'queued',
      wait: null,
      steps: sql`${executorRuns.steps} || ${JSON.stringify({ [stepId]: result })}::jsonb`,
      stack: sql`${executorRuns.stack} || ${JSON.stringify([stepId])}::jsonb`,
      availableAt: now,
    })
    .where(and(eq(executorRuns.id, run.id), inArray(executorRuns.status, ['waiting', 'sleeping'])));
}

/** Starts the runs of cron triggers that are due, each due time once even with several processes; `spread`: cron-schedule.ts. */
export async function fireDueCrons(db: Db, now: Date, spread?: CronSpread) {
  const due = await db.transaction(async (tx) => {
    const rows = await tx.select().from(executorCrons).where(lte(executorCrons.nextAt, now)).for('update', { skipLocked: true });
    for (const r of rows) {
      const next = nextCronFire(spread, r.functionId, r.cron, now);
      await tx
        .update(executorCrons)
        .set({ nextAt: next ?? new Date(8.64e15) })
        .where(and(eq(executorCrons.functionId, r.functionId), eq(executorCrons.cron, r.cron)));
    }
    return rows;
  });
  for (const r of due) {
    const [fn] = await db.select().from(executorFunctions).where(eq(executorFunctions.id, r.functionId));
    if (fn) await startRun(db, fn, { name: 'inngest/scheduled.timer', data: { cron: r.cron }, ts: now.getTime(), id: `cron-${r.functionId}-${r.nextAt.getTime()}` }, now);
  }
  return due.length;
}

/**
 * The earliest time something becomes runnable (a run due, a lease lapsing, a cron firing), to
 * sleep until then rather than poll: three index lookups, however many runs sleep or wait.
 */
export async function nextWakeAt(db: Db): Promise<Date | null> {
  const { rows } = await db.execute<{ at: string | Date | null }>(sql`
    SELECT least(
      (SELECT available_at FROM executor_runs WHERE status IN ('queued', 'sleeping', 'waiting') AND lease_until IS NULL ORDER BY available_at LIMIT 1),
      (SELECT lease_until FROM executor_runs WHERE status = 'running' ORDER BY lease_until LIMIT 1),
      (SELECT min(next_at) FROM executor_crons)
    ) AS at`);
  const at = rows[0]?.at;
  return at ? new Date(at) : null;
}

/**
 * Hands back every run `owner` still holds: runnable now, without a lease, and a NOTIFY so another
 * process claims them at once. The owner's late writes are refused (they are fenced by the lease).
 */
export async function releaseRuns(db: Db, owner: string, now: Date, runId?: string): Promise<number> {
  const released = await db
    .update(executorRuns)
    .set({ status: 'queued', availableAt: now, leaseOwner: null, leaseUntil: null })
    .where(and(eq(executorRuns.leaseOwner, owner), eq(executorRuns.status, 'running'), runId ? eq(executorRuns.id, runId) : undefined))
    .returning({ id: executorRuns.id });
  if (released.length) await notify(db);
  return released.length;
}
