import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { executorRuns } from '@/db/schema';
import { logger } from '@/server/logger';
import { handledLocally } from './local-transport';
import type { CallResult } from './protocol';
import { StepDeadlineExceeded } from './step-deadlines';

/** A call running longer than this is logged once as overstaying (the metrics show its age: steward_engine_oldest_running_step_age_seconds). */
export const STEP_AGE_WARN_MS = 120_000;

export type GuardedCall = {
  runId: string;
  functionId: string;
  /** How long the call may run: its function's longest step deadline plus the slack (step-deadlines.ts). */
  deadlineMs: number;
  /** Where the call goes: a call answered in-process cannot be aborted, so it gets no AbortSignal. */
  url: string;
};

type Watched = {
  g: GuardedCall;
  started: number;
  deadline: number;
  warned: boolean;
  expire: (r: CallResult) => void;
  abort: AbortController | null;
};

export type CallGuard = {
  /**
   * One call of the app, held to its deadline. While it runs, the run's lease is renewed (every
   * third of the lease, all calls in flight in one statement), so no other worker takes the run
   * over (and calls the step again) while this one still drives it; but not past the deadline
   * (renewal ends with the call). At the deadline the call is abandoned (`signal` aborts it where it
   * goes over the network; an in-process call runs on and its answer is dropped) and answered as a
   * failed attempt, StepDeadlineExceeded, which the runner retries with backoff. The lease is still
   * this worker's then (renewed until the deadline), so that write goes through.
   */
  guard: (g: GuardedCall, work: (signal: AbortSignal | undefined) => Promise<CallResult>) => Promise<CallResult>;
  /** Calls in flight (tests, metrics). */
  size: () => number;
};

/**
 * The calls one executor has in flight, watched together: one renewal statement per tick for all
 * their runs, one timer for the nearest deadline. A call costs no timer, interval or abort
 * controller of its own (those were a visible part of a short step's CPU), and the database sees
 * one lease renewal per third of a lease, however many calls run.
 */
export function createCallGuard(opts: { db: Db; owner: string; leaseMs: number; now: () => Date }): CallGuard {
  const calls = new Set<Watched>();
  const renewEvery = Math.max(100, Math.floor(opts.leaseMs / 3));
  let renewer: NodeJS.Timeout | undefined;
  let deadlineTimer: NodeJS.Timeout | undefined;
  let deadlineAt = Infinity;

  function renew() {
    const now = Date.now();
    const ids: string[] = [];
    for (const c of calls) {
      const ran = now - c.started;
      if (!c.warned && ran > STEP_AGE_WARN_MS) {
        c.warned = true;
        logger.warn({ runId: c.g.runId, function: c.g.functionId, runningMs: ran, deadlineMs: c.g.deadlineMs }, 'executor: a step has been running for long');
      }
      ids.push(c.g.runId);
    }
    if (!ids.length) return;
    void opts.db
      .update(executorRuns)
      .set({ leaseUntil: new Date(opts.now().getTime() + opts.leaseMs) })
      .where(and(inArray(executorRuns.id, ids), eq(executorRuns.leaseOwner, opts.owner), eq(executorRuns.status, 'running')))
      .catch(() => {});
  }

  /** Expires the calls past their deadline and sets the timer for the next one. */
  function expireDue() {
    deadlineTimer = undefined;
    deadlineAt = Infinity;
    const now = Date.now();
    for (const c of calls) {
      if (c.deadline <= now) {
        calls.delete(c);
        const error = new StepDeadlineExceeded(`a call of ${c.g.functionId}`, c.g.deadlineMs);
        logger.warn({ runId: c.g.runId, function: c.g.functionId, deadlineMs: c.g.deadlineMs }, 'executor: a call ran past its deadline; the attempt fails and its lease is no longer renewed');
        c.expire({ kind: 'error', retriable: true, error: { name: error.name, message: error.message }, retryAfter: null });
        c.abort?.abort(error);
      } else armDeadline(c.deadline);
    }
    if (!calls.size) stopRenewing();
  }

  function armDeadline(at: number) {
    if (at >= deadlineAt) return;
    clearTimeout(deadlineTimer);
    deadlineAt = at;
    deadlineTimer = setTimeout(expireDue, Math.max(0, at - Date.now()));
    deadlineTimer.unref();
  }

  function stopRenewing() {
    clearInterval(renewer);
    renewer = undefined;
    clearTimeout(deadlineTimer);
    deadlineTimer = undefined;
    deadlineAt = Infinity;
  }

  return {
    size: () => calls.size,
    async guard(g, work) {
      const started = Date.now();
      let expire!: (r: CallResult) => void;
      const expired = new Promise<CallResult>((resolve) => (expire = resolve));
      const abort = handledLocally(g.url) ? null : new AbortController();
      const c: Watched = { g, started, deadline: started + g.deadlineMs, warned: false, expire, abort };
      calls.add(c);
      armDeadline(c.deadline);
      if (!renewer) {
        renewer = setInterval(renew, renewEvery);
        renewer.unref();
      }
      try {
        return await Promise.race([work(abort?.signal), expired]);
      } finally {
        calls.delete(c);
        if (!calls.size) stopRenewing();
      }
    },
  };
}
