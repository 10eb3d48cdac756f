import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Db } from '@/db/client';
import { logger } from '@/server/logger';
import { createRunWriter } from './run-writer';
import { driveRun, type Clock } from './runner';
import { claimRuns, type ClaimedRun } from './claim';
import { fireDueCrons, nextWakeAt, NOTIFY_CHANNEL, releaseRuns } from './store';

/** Runs one process drives at once unless told otherwise (STEWARD_EXECUTOR_WORKERS in npm start). */
export const DEFAULT_WORKERS = 64;

export type ExecutorOptions = {
  db: Db;
  /** For LISTEN: a dedicated connection wakes the executor when work arrives. */
  databaseUrl: string;
  signingKey: string;
  clock?: Clock;
  /**
   * Runs driven at once by this process (DEFAULT_WORKERS). A run holds its worker while a step works,
   * a model call included, and workers that end runs together share one write.
   */
  workers?: number;
  leaseMs?: number;
  /** Longest sleep between checks when nothing is scheduled (a safety net; NOTIFY does the waking). */
  idleMs?: number;
  /** How long `stop()` lets in-flight calls finish before it hands their runs back (STEWARD_SHUTDOWN_MS). */
  shutdownMs?: number;
  /** false: one step per call (the SDK does not checkpoint). */
  checkpointing?: boolean;
  /** This process's serve endpoint; calls go there rather than to the URL the last registering process stored. */
  serveUrl?: string;
};

export type Executor = {
  /**
   * Stops claiming, lets the calls in flight finish for up to `deadlineMs` (no new call starts),
   * then hands every run this executor still holds back to the queue, due now, and notifies:
   * another process picks them up at once rather than after the lease.
   */
  stop: (opts?: { deadlineMs?: number }) => Promise<{ released: number }>;
  poke: () => void;
  owner: string;
};

/**
 * The built-in executor: claims runnable runs from Postgres and drives them through the
 * app's serve endpoint. It sleeps until the next scheduled time or a NOTIFY, never polls busily.
 */
export async function startExecutor(opts: ExecutorOptions): Promise<Executor> {
  const owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const clock = opts.clock ?? { now: () => new Date() };
  const leaseMs = opts.leaseMs ?? 60_000;
  const workers = opts.workers ?? DEFAULT_WORKERS;
  const idleMs = opts.idleMs ?? 30_000;
  let stopped = false;
  const writer = createRunWriter(opts.db);
  const deps = { db: opts.db, signingKey: opts.signingKey, clock, owner, leaseMs, checkpointing: opts.checkpointing, serveUrl: opts.serveUrl, stopping: () => stopped, writer };
  let timer: NodeJS.Timeout | undefined;
  let active = 0;
  /** Worker slots a claim in flight may fill. */
  let reserved = 0;
  /** Counts pokes, so a worker knows whether work was announced while it looked for some. */
  let wakeups = 0;
  let cronBusy: Promise<void> | null = null;

  const listener = new pg.Client({ connectionString: opts.databaseUrl });
  listener.on('error', () => {});
  await listener.connect();
  await listener.query(`LISTEN ${NOTIFY_CHANNEL}`);
  listener.on('notification', () => poke());

  /**
   * Claims and drives runs until none is runnable; each worker works on its own, so one long run
   * never holds the others up. A worker looking for work claims, in one statement, a run for
   * itself and one for every idle worker slot, and starts a worker for each extra run: many runs
   * falling due together are all under way after one claim, and a burst of new runs costs one
   * claim that finds nothing, not one per idle worker. A worker that found nothing while work was
   * announced looks again. A run that ends claims the worker's next one in the same write
   * (group-committed with other workers'): under load a run costs no claim of its own.
   */
  async function worker(first: ClaimedRun | null = null) {
    let next = first;
    while (!stopped) {
      const announced = wakeups;
      let claimed = next;
      next = null;
      if (!claimed) {
        // Slots promised to a claim in flight are not offered to another one.
        const spare = Math.max(0, workers - active - reserved);
        reserved += spare;
        let batch: ClaimedRun[];
        try {
          batch = await claimRuns(opts.db, { owner, now: clock.now(), leaseMs, limit: 1 + spare });
        } finally {
          reserved -= spare;
        }
        claimed = batch.shift() ?? null;
        for (const extra of batch) startWorker(extra);
        // Runs with a concurrency key are claimed one at a time: while slots are free, another
        // worker looks for the next (one claim that finds nothing ends a burst).
        if (claimed && active + reserved < workers) startWorker();
      }
      if (!claimed) {
        if (announced !== wakeups) continue;
        return;
      }
      if (stopped) {
        // Claimed while the executor was stopping: give it straight back (and every run still held
        // goes back when stop() ends).
        await releaseRuns(opts.db, owner, clock.now(), claimed.run.id);
        return;
      }
      try {
        next = await driveRun(deps, claimed.run, claimed.fn);
      } catch (err) {
        // The lease lapses and the run is picked up again; nothing is lost.
        logger.error({ err, runId: claimed.run.id }, 'executor: run failed to advance');
      }
    }
  }

  /** When every worker is idle: sleep until the next due run or cron (NOTIFY wakes earlier). */
  async function scheduleNext() {
    if (stopped || active > 0 || cronBusy) return;
    try {
      const wake = await nextWakeAt(opts.db);
      const delay = wake ? Math.max(0, Math.min(idleMs, wake.getTime() - clock.now().getTime())) : idleMs;
      clearTimeout(timer);
      if (!stopped && active === 0 && !cronBusy) timer = setTimeout(poke, Math.max(delay, 20));
    } catch (err) {
      logger.error({ err }, 'executor: scheduling failed');
      timer = setTimeout(poke, 1000);
    }
  }

  function startWorker(first: ClaimedRun | null = null) {
    active++;
    void worker(first)
      .catch((err) => logger.error({ err }, 'executor: worker failed'))
      .finally(() => {
        active--;
        if (active === 0) void scheduleNext();
      });
  }

  /**
   * Work arrived or is due. Workers start claiming at once; due cron triggers are fired beside
   * them (not before: a run just sent waits for no cron bookkeeping), and the runs those start
   * are claimed by the poke that follows.
   */
  function poke() {
    if (stopped) return;
    wakeups++;
    cronBusy ??= fireDueCrons(opts.db, clock.now())
      .catch((err) => {
        logger.error({ err }, 'executor: cron firing failed');
        return 0;
      })
      .then((started) => {
        cronBusy = null;
        if (started > 0) poke();
        else if (active === 0) void scheduleNext();
      });
    if (active + reserved < workers) startWorker();
  }

  poke();
  return {
    owner,
    poke,
    stop: async (o = {}) => {
      stopped = true;
      clearTimeout(timer);
      const deadline = Date.now() + (o.deadlineMs ?? opts.shutdownMs ?? 10_000);
      while (active > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await cronBusy;
      const released = await releaseRuns(opts.db, owner, clock.now()).catch((err) => {
        logger.error({ err }, 'executor: could not release its runs; they return when their lease ends');
        return 0;
      });
      if (released > 0) logger.info({ released }, 'executor: handed in-flight runs back');
      await listener.end().catch(() => {});
      return { released };
    },
  };
}
