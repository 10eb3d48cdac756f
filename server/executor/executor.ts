import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Db } from '@/db/client';
import { countExecutorSaturated } from '@/server/http/metrics';
import { logger } from '@/server/logger';
import { createCallGuard } from './call-guard';
import { createRunWriter } from './run-writer';
import { driveRun, type Clock } from './runner';
import { claimRuns, type ClaimedRun } from './claim';
import type { StepDeadlineTable } from './step-deadlines';
import type { CronSpread } from './cron-schedule';
import { fireDueCrons, nextWakeAt, NOTIFY_CHANNEL, releaseRuns } from './store';

/** Runs one process drives at once unless told otherwise (STEWARD_EXECUTOR_WORKERS in npm start). */
export const DEFAULT_WORKERS = 64;
/** While every worker is busy and a run is due, the clock looks again this often (a worker that frees up claims it at once). */
const SATURATED_RECHECK_MS = 1_000;
/** A due run kept waiting this long by busy workers is logged (once a minute at most). */
export const LATENESS_WARN_MS = 10_000;
/** The shortest timer; a due run that stays unclaimed though a worker is free (its concurrency key is full) is looked at less and less often, down to 4 times a second. */
const MIN_DELAY_MS = 20;
const BLOCKED_RECHECK_MS = 250;

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
  /** Step deadlines of the functions (step-deadlines.ts; Steward's: inngest/step-deadlines.ts); a function not named gets the default. */
  deadlines?: StepDeadlineTable;
  /** When cron triggers fire within their minute (cron-schedule.ts; Steward's: inngest/cron-spread.ts); absent: on the scheduled time. */
  cronSpread?: CronSpread;
  /** What a call may run beyond its function's longest step deadline (DEFAULT_CALL_SLACK_MS). */
  deadlineSlackMs?: number;
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
  const deps = {
    db: opts.db,
    signingKey: opts.signingKey,
    clock,
    owner,
    leaseMs,
    checkpointing: opts.checkpointing,
    serveUrl: opts.serveUrl,
    stopping: () => stopped,
    writer,
    calls: createCallGuard({ db: opts.db, owner, leaseMs, now: () => clock.now() }),
    deadlines: opts.deadlines,
    deadlineSlackMs: opts.deadlineSlackMs,
    wakeAt: (at: Date) => wakeAt(at),
  };
  /** The clock: one timer, always armed for the next due time (or idleMs), whatever the workers do. */
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let refreshing = false;
  let refreshAgain = false;
  /** Consecutive looks that found a run due, a worker free, and the run still unclaimed. */
  let pastDue = 0;
  let lateWarnedAt = 0;
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

  const free = () => active + reserved < workers;

  function arm(delay: number) {
    clearTimeout(timer);
    timerAt = Date.now() + delay;
    timer = setTimeout(() => {
      timer = undefined;
      timerAt = Infinity;
      poke();
    }, delay);
  }

  /** A run this process made runnable later (a sleep, a wait's timeout, a retry): the timer moves forward if it is sooner. */
  function wakeAt(at: Date) {
    if (stopped) return;
    const delay = Math.min(idleMs, Math.max(MIN_DELAY_MS, at.getTime() - clock.now().getTime()));
    if (Date.now() + delay < timerAt) arm(delay);
  }

  /** Every worker busy, a run due: it waits for a slot. Counted (metrics) and logged when long. */
  function noteLate(lateMs: number) {
    countExecutorSaturated();
    if (lateMs >= LATENESS_WARN_MS && Date.now() - lateWarnedAt > 60_000) {
      lateWarnedAt = Date.now();
      logger.warn({ lateMs, workers }, 'executor: every worker is busy and a due run waits for one (steward_engine_oldest_due_lateness_seconds)');
    }
  }

  /**
   * Sets the timer for the next due run, lapsing lease or cron (NOTIFY wakes earlier), whether or
   * not workers are busy: a step that never returns holds its worker, never the clock. When the
   * timer fires, a free worker slot claims what is due; with every slot busy, the run waits for
   * the first worker to free up (which claims it at once), and the lateness is counted and looked
   * at again each second. One look at a time; a request meanwhile makes one more.
   */
  async function refresh() {
    if (stopped) return;
    if (refreshing) return void (refreshAgain = true);
    refreshing = true;
    try {
      do {
        refreshAgain = false;
        let delay: number;
        try {
          const wake = await nextWakeAt(opts.db);
          delay = wake ? wake.getTime() - clock.now().getTime() : idleMs;
          if (delay > 0) pastDue = 0;
          else if (!free()) {
            noteLate(-delay);
            delay = SATURATED_RECHECK_MS;
          } else delay = Math.min(BLOCKED_RECHECK_MS, MIN_DELAY_MS * 2 ** pastDue++);
          delay = Math.min(idleMs, Math.max(MIN_DELAY_MS, delay));
        } catch (err) {
          logger.error({ err }, 'executor: scheduling failed');
          delay = 1000;
        }
        if (!stopped) arm(delay);
      } while (refreshAgain && !stopped);
    } finally {
      refreshing = false;
    }
  }

  function startWorker(first: ClaimedRun | null = null) {
    active++;
    void worker(first)
      .catch((err) => logger.error({ err }, 'executor: worker failed'))
      .finally(() => {
        active--;
        // A slot is free again: the clock looks at what is due next.
        void refresh();
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
    cronBusy ??= fireDueCrons(opts.db, clock.now(), opts.cronSpread)
      .catch((err) => {
        logger.error({ err }, 'executor: cron firing failed');
        return 0;
      })
      .then((started) => {
        cronBusy = null;
        if (started > 0) poke();
        else void refresh();
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
