import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { executorRuns } from '@/db/schema';
import { logger } from '@/server/logger';
import type { CallResult } from './protocol';
import { StepDeadlineExceeded } from './step-deadlines';

/** A call running longer than this is logged once as overstaying (the metrics show its age: steward_engine_oldest_running_step_age_seconds). */
export const STEP_AGE_WARN_MS = 120_000;

export type GuardedCall = {
  db: Db;
  runId: string;
  functionId: string;
  owner: string;
  leaseMs: number;
  now: () => Date;
  /** How long the call may run: its function's longest step deadline plus the slack (step-deadlines.ts). */
  deadlineMs: number;
};

/**
 * One call of the app, held to its deadline. While it runs, the run's lease is renewed every third
 * of the lease, so no other worker takes the run over (and calls the step again) while this one
 * still drives it; but not past the deadline (renewal ends with the call). At the deadline the call is abandoned (`signal`
 * aborts it where it goes over the network; an in-process call runs on and its answer is dropped)
 * and answered as a failed attempt, StepDeadlineExceeded, which the runner retries with backoff.
 * The lease is still this worker's then (renewed until the deadline), so that write goes through.
 */
export async function guardCall(g: GuardedCall, work: (signal: AbortSignal) => Promise<CallResult>): Promise<CallResult> {
  const started = Date.now();
  const abort = new AbortController();
  let warned = false;
  const renew = setInterval(
    () => {
      const ran = Date.now() - started;
      if (!warned && ran > STEP_AGE_WARN_MS) {
        warned = true;
        logger.warn({ runId: g.runId, function: g.functionId, runningMs: ran, deadlineMs: g.deadlineMs }, 'executor: a step has been running for long');
      }
      void g.db
        .update(executorRuns)
        .set({ leaseUntil: new Date(g.now().getTime() + g.leaseMs) })
        .where(and(eq(executorRuns.id, g.runId), eq(executorRuns.leaseOwner, g.owner), eq(executorRuns.status, 'running')))
        .catch(() => {});
    },
    Math.max(100, Math.floor(g.leaseMs / 3)),
  );
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<CallResult>((resolve) => {
    timer = setTimeout(() => {
      const error = new StepDeadlineExceeded(`a call of ${g.functionId}`, g.deadlineMs);
      logger.warn({ runId: g.runId, function: g.functionId, deadlineMs: g.deadlineMs }, 'executor: a call ran past its deadline; the attempt fails and its lease is no longer renewed');
      resolve({ kind: 'error', retriable: true, error: { name: error.name, message: error.message }, retryAfter: null });
      abort.abort(error);
    }, g.deadlineMs);
  });
  try {
    return await Promise.race([work(abort.signal), expired]);
  } finally {
    clearTimeout(timer);
    clearInterval(renew);
  }
}
