import { logger } from '@/server/logger';
import { registerTaskTimer } from '@/server/tasks/timers';

/*
 * Composition (entry floor): a task's alarm or scheduled time, set in a transaction
 * (server/tasks/timers.ts), goes to the engine as the task-timer-set event, which waits for that
 * transaction to commit and sleeps until the time (inngest/functions/task-timer.ts). Imported by
 * server/task-hooks.ts, which every process that serves the API loads.
 */
const engine = () => Promise.all([import('@/inngest/client'), import('@/inngest/events')]).then(([c, e]) => ({ inngest: c.inngest, events: e.events }));

registerTaskTimer((timer) => {
  void engine()
    .then(({ inngest, events }) => inngest.send(events.taskTimerSet.create(timer, { id: `task-timer-${timer.taskId}-${timer.at}` })))
    .catch((err: unknown) => logger.warn({ err, taskId: timer.taskId }, 'task timer: handover failed; the minute sweep will wake it'));
});
