import { eventType } from 'inngest';
import { z } from 'zod';

/**
 * Every event Steward sends or is triggered by, with the Zod schema of its data. Functions
 * trigger on these objects and senders build events with `.create(data)`, so a name or a
 * payload cannot drift between the two sides.
 */
export const events = {
  /** Record a heartbeat now (the cron does it every 10 minutes). */
  heartbeatRequested: eventType('steward/heartbeat', { schema: z.object({}).loose() }),
  /** Look up unverified organization domains again now (the cron does it hourly). */
  domainsRecheckRequested: eventType('steward/domains.recheck', { schema: z.object({}).loose() }),
  /** Wake the tasks whose alarm or scheduled time is due now (the cron does it every minute). */
  tasksWakeupsDue: eventType('steward/tasks.wakeups-due', { schema: z.object({}).loose() }),
  /** A task run was queued and its transaction committed: the task-run function runs it (server/runtime.ts sends it). */
  taskRunRequested: eventType('steward/task.run-requested', {
    schema: z.object({ taskId: z.string().min(1), runId: z.string().min(1), accountId: z.string().min(1) }),
  }),
} as const;

export type StewardEventName = (typeof events)[keyof typeof events]['name'];
