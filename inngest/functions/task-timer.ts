import { sharedDatabase } from '@/db/client';
import { transactionOutcome } from '@/db/queries/transaction-outcome';
import { wakeTask } from '@/server/tasks/wakeups';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/**
 * A task's alarm or scheduled start at its time (server/tasks/timers.ts): once the transaction
 * that set the time has committed, sleep until it, then wake that task if it is still due (a
 * reply may have woken it, the user may have moved it). The minute sweep (task-wakeups) catches
 * whatever a lost timer misses.
 */
export const taskTimer = inngest.createFunction({ id: 'task-timer', retries: 3, triggers: [events.taskTimerSet] }, async ({ event, step }) => {
  const { taskId, at, transactionId } = event.data;
  const set = await step.run('set', async () => {
    const outcome = await transactionOutcome(db(), transactionId);
    if (outcome === 'unknown') throw new Error(`the transaction that set task ${taskId}'s time has not ended yet`);
    return outcome;
  });
  if (set === 'aborted') return { woke: null, reason: 'the time was never set' };
  await step.sleepUntil('until-due', at);
  return { woke: await step.run('wake', () => wakeTask(db(), taskId, new Date())) };
});
