import { cron, eventType } from 'inngest';
import { z } from 'zod';
import { sharedDatabase } from '@/db/client';
import { failStaleCalendarWaits } from '@/server/calendars/access';
import { sendDueReminders } from '@/server/calendars/reminders';
import { inngest } from '../client';

const db = () => sharedDatabase().db;

/** The events of calendar reminders and access (server/calendars/reminders.ts, access.ts), beside their functions. */
export const calendarReminderEvents = {
  /** Send the reminders due now (the cron does it every minute). */
  calendarRemindersDue: eventType('steward/calendars.reminders-due', { schema: z.object({}).loose() }),
  /** Fail the tasks that waited 7 days for a revoked or failing calendar (the cron does it every 15 minutes). */
  calendarAccessDue: eventType('steward/calendars.access-due', { schema: z.object({}).loose() }),
};

/**
 * Every minute: reminders of the occurrences whose reminder time has come. Overlapping or repeated
 * invocations are safe: each occurrence's notice is made once (its dedupe key).
 */
export const calendarReminders = inngest.createFunction(
  { id: 'calendar-reminders', retries: 1, triggers: [cron('* * * * *'), calendarReminderEvents.calendarRemindersDue] },
  async ({ step }) => step.run('remind', () => sendDueReminders(db(), new Date())),
);

/** Every 15 minutes: tasks deferred for a calendar whose connection stayed revoked or failing for 7 days go to failed_access. */
export const calendarAccessSweep = inngest.createFunction(
  { id: 'calendar-access-sweep', retries: 1, triggers: [cron('*/15 * * * *'), calendarReminderEvents.calendarAccessDue] },
  async ({ step }) => step.run('sweep', async () => ({ failed: (await failStaleCalendarWaits(db(), new Date())).length })),
);
