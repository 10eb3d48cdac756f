import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { wakeDueTasks } from '@/server/tasks/wakeups';
import { inngest } from '../client';
import { events } from '../events';

/**
 * Every minute (or when steward/tasks.wakeups-due is sent), due alarms fire and due scheduled
 * tasks start (server/tasks/wakeups.ts); the runs they queue are started by the dispatcher once
 * each task's transaction commits. Overlapping invocations are safe: the service skips rows
 * another one holds, so a minute-level cron needs no concurrency limit of its own.
 */
export const taskWakeups = inngest.createFunction(
  { id: 'task-wakeups', retries: 1, triggers: [cron('* * * * *'), events.tasksWakeupsDue] },
  async ({ step }) => step.run('wake', () => wakeDueTasks(sharedDatabase().db, new Date())),
);
