import { sharedDatabase } from '@/db/client';
import { runDueTriggers } from '@/server/workflows/triggers/scheduler';
import { inngest } from '../client';
import { events } from '../events';

/**
 * Workflow triggers that fire on their own (server/workflows/triggers/scheduler.ts): every minute,
 * the rows whose time has come — cron times, condition polls, inactivity windows, firings an event
 * scheduled for later. One run at a time.
 */
export const workflowScheduler = inngest.createFunction(
  { id: 'workflow-scheduler', concurrency: { limit: 1 }, triggers: [{ cron: '* * * * *' }, events.workflowsDue] },
  async ({ event, step }) => {
    const now = (event.data as { now?: string } | undefined)?.now;
    const handled = await step.run('due', () => runDueTriggers(sharedDatabase().db, now ? new Date(now) : new Date()));
    return { handled };
  },
);
