import { sharedDatabase } from '@/db/client';
import { transactionOutcome } from '@/db/queries/transaction-outcome';
import { logger } from '@/server/logger';
import { registerRunDispatcher, type QueuedRun } from '@/server/tasks/runs';
import './task-hooks';

/*
 * Composition of the agent runtime (entry floor): the tasks area records queued runs, and this
 * file starts them by sending the task-run event (inngest/functions/task-run.ts), once the
 * transaction that queued the run has committed. Imported by every process that serves the API
 * (scripts/start.ts, server/route-handlers.ts) and by tests that run tasks.
 */

async function dispatch(run: QueuedRun): Promise<void> {
  const outcome = await transactionOutcome(sharedDatabase().db, run.transactionId);
  if (outcome !== 'committed') {
    if (outcome === 'unknown') logger.warn({ runId: run.runId }, 'task run not started: its transaction did not end in time');
    return;
  }
  // Loaded on first use: the Inngest client reads the executor's keys and URL when it loads,
  // and scripts/start.ts sets them after this module is imported.
  const [{ inngest }, { events }] = await Promise.all([import('@/inngest/client'), import('@/inngest/events')]);
  await inngest.send(events.taskRunRequested.create({ taskId: run.taskId, runId: run.runId, accountId: run.accountId }));
}

registerRunDispatcher((run) => {
  // Never fails the request that queued the run: a run that cannot be sent stays queued, logged.
  dispatch(run).catch((err: unknown) => logger.error({ err, runId: run.runId, taskId: run.taskId }, 'task run could not be started'));
});
