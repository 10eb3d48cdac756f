import { cron, eventType } from 'inngest';
import { z } from 'zod';
import { sharedDatabase } from '@/db/client';
import { sweepTaskHolds } from '@/server/tasks/holds';
import { inngest } from '../client';

const db = () => sharedDatabase().db;

/** The event of the holds sweep (server/tasks/holds.ts), beside its function. */
export const taskHoldsEvents = {
  /** Lift the holds that may lift, reopen unread conversations, give up idle failures (the cron does it every 5 minutes). */
  taskHoldsDue: eventType('steward/tasks.holds-due', { schema: z.object({}).loose() }),
};

/**
 * Every 5 minutes: paused tasks whose owner is active again run, message_received conversations
 * of released accounts reopen, failures idle past STEWARD_TASK_ABANDON_DAYS are abandoned. Each
 * task moves in its own transaction under its row lock, so overlapping passes are safe.
 */
export const taskHoldsSweep = inngest.createFunction(
  { id: 'task-holds-sweep', retries: 1, triggers: [cron('*/5 * * * *'), taskHoldsEvents.taskHoldsDue] },
  async ({ step }) => step.run('sweep', () => sweepTaskHolds(db(), new Date())),
);
