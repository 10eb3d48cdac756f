import { and, eq, inArray, isNull, lte, notInArray, or, sql } from 'drizzle-orm';
import { Cron } from 'croner';
import type { Db } from '@/db/client';
import { executorCrons, executorEvents, executorFunctions, executorRuns, type ExecutorFunctionRow, type ExecutorRunRow } from '@/db/schema';
import { keyValue, matches } from './cel';

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
export async function registerFunctions(db: Db, body: { appName: string; url: string; functions: FunctionConfig[] }, now: Date) {
  for (const fn of body.functions) {
    const url = fn.steps?.step?.runtime?.url?.split('?')[0] ?? body.url;
    await db
      .insert(executorFunctions)
      .values({ id: fn.id, appName: body.appName, url, config: fn as unknown as Json })
      .onConflictDoUpdate({ target: executorFunctions.id, set: { url, appName: body.appName, config: fn as unknown as Json, updatedAt: now } });
    const crons = (fn.triggers ?? []).filter((t) => t.cron).map((t) => t.cron!);
    await db.delete(executorCrons).where(and(eq(executorCrons.functionId, fn.id), crons.length ? notInArray(executorCrons.cron, crons) : undefined));
    for (const cron of crons) {
      const next = new Cron(cron, { timezone: 'UTC' }).nextRun(now);
      if (next) await db.insert(executorCrons).values({ functionId: fn.id, cron, nextAt: next }).onConflictDoNothing();
    }
  }
  return { ok: true, modified: true };
}

export type IncomingEvent = { id?: string; name: string; data?: Json; ts?: number; user?: Json };

/**
 * Records events and does what each one causes: starts runs of functions it triggers,
 * resumes runs waiting for it, and cancels runs it cancels.
 */
export async function ingestEvents(db: Db, events: IncomingEvent[], now: Date): Promise<string[]> {
  const ids: string[] = [];
  const functions = await db.select().from(executorFunctions);
  let woken = false;
  let more = false;
  for (const e of events) {
    const [row] = await db
      .insert(executorEvents)
      .values({ name: e.name, data: e.data ?? {}, ts: e.ts ?? now.getTime() })
      .returning();
    ids.push(row.id);
    const event = { id: row.id, name: row.name, data: row.data, ts: row.ts, ...(e.user ? { user: e.user } : {}) };
    for (const fn of functions) {
      const cfg = fn.config as unknown as FunctionConfig;
      for (const t of cfg.triggers ?? []) {
        if (t.event === e.name && matches(t.expression, { event })) {
          await startRun(db, fn, event, now);
          // The first run started wakes the executors at once: they claim it while the rest is recorded.
          if (woken) more = true;
          else await notify(db);
          woken = true;
        }
      }
      for (const c of cfg.cancel ?? []) {
        if (c.event === e.name) await cancelMatching(db, fn.id, c.if, event, now);
      }
    }
    if ((await resumeWaiting(db, event, row.receivedAt, now)) > 0) more = true;
  }
  if (!woken || more) await notify(db);
  return ids;
}

export async function startRun(db: Db, fn: ExecutorFunctionRow, event: Json, now: Date, parentRunId: string | null = null) {
  const cfg = fn.config as unknown as FunctionConfig;
  const c = concurrencyOf(cfg);
  const concurrencyKey = c ? `${fn.id}:${c.key ? keyValue(c.key, { event }) : ''}` : null;
  const [run] = await db
    .insert(executorRuns)
    .values({ functionId: fn.id, event, concurrencyKey, availableAt: now, parentRunId })
    .returning();
  return run;
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

/** Runs waiting for this event whose `if` holds get it as their step's result; how many did. */
async function resumeWaiting(db: Db, event: Json, receivedAt: Date, now: Date): Promise<number> {
  const waiting = await db
    .select()
    .from(executorRuns)
    .where(and(eq(executorRuns.status, 'waiting'), sql`${executorRuns.wait}->>'kind' = 'event'`, sql`${executorRuns.wait}->>'event' = ${event.name as string}`));
  let resumed = 0;
  for (const run of waiting) {
    const wait = run.wait as { stepId: string; if?: string; since: number };
    // Only events that arrive after the wait began count (arrival is real time, like the event's ts).
    if (receivedAt.getTime() < wait.since) continue;
    if (!matches(wait.if, { event, async: run.event })) continue;
    await resolveWait(db, run, { type: 'data', data: event }, now);
    resumed++;
  }
  return resumed;
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

/** A claimed run with its function as registered (null when none is: the run then fails). */
export type ClaimedRun = { run: ExecutorRunRow; fn: ExecutorFunctionRow | null };

/**
 * Claims one runnable run with FOR UPDATE SKIP LOCKED and a lease, so two processes never
 * run the same run at once and a crashed process's runs return when the lease ends. A run
 * whose concurrency key already has `limit` running runs is skipped. The function is read in
 * the same query, for the concurrency limit and for driving the run.
 */
export async function claimRun(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedRun | null> {
  return db.transaction(async (tx) => {
    const candidates = await tx
      .select({ run: executorRuns, fn: executorFunctions })
      .from(executorRuns)
      .leftJoin(executorFunctions, eq(executorFunctions.id, executorRuns.functionId))
      .where(
        and(
          or(
            and(inArray(executorRuns.status, ['queued', 'sleeping', 'waiting']), lte(executorRuns.availableAt, now), isNull(executorRuns.leaseUntil)),
            and(eq(executorRuns.status, 'running'), lte(executorRuns.leaseUntil, now)),
          ),
        ),
      )
      .orderBy(executorRuns.availableAt)
      .limit(10)
      .for('update', { of: executorRuns, skipLocked: true });
    for (const { run, fn } of candidates) {
      const limit = fn ? (concurrencyOf(fn.config as unknown as FunctionConfig)?.limit ?? 0) : 0;
      const keyed = run.concurrencyKey !== null && run.status !== 'running' && limit > 0;
      // Serialize claims per key so two processes cannot both see a free slot. The update below
      // is a later statement, so it counts every run claimed and committed before the lock.
      if (keyed) await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${run.concurrencyKey}))`);
      const slotFree = keyed
        ? sql`(SELECT count(*) FROM ${executorRuns} WHERE ${executorRuns.concurrencyKey} = ${run.concurrencyKey} AND ${executorRuns.status} = 'running') < ${limit}`
        : undefined;
      const [claimed] = await tx
        .update(executorRuns)
        .set({ status: 'running', leaseOwner: owner, leaseUntil: new Date(now.getTime() + leaseMs) })
        .where(and(eq(executorRuns.id, run.id), slotFree))
        .returning();
      if (claimed) return { run: claimed, fn };
    }
    return null;
  });
}

/** Starts the runs of cron triggers that are due, each due time once even with several processes. */
export async function fireDueCrons(db: Db, now: Date) {
  const due = await db.transaction(async (tx) => {
    const rows = await tx.select().from(executorCrons).where(lte(executorCrons.nextAt, now)).for('update', { skipLocked: true });
    for (const r of rows) {
      const next = new Cron(r.cron, { timezone: 'UTC' }).nextRun(now);
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

/** The earliest time something becomes runnable, to sleep until then rather than poll. */
export async function nextWakeAt(db: Db): Promise<Date | null> {
  const [run] = await db
    .select({ at: sql<Date>`min(coalesce(${executorRuns.leaseUntil}, ${executorRuns.availableAt}))` })
    .from(executorRuns)
    .where(notInArray(executorRuns.status, [...FINISHED]));
  const [cron] = await db.select({ at: sql<Date>`min(${executorCrons.nextAt})` }).from(executorCrons);
  const times = [run?.at, cron?.at].filter(Boolean).map((d) => new Date(d as unknown as string));
  return times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null;
}
