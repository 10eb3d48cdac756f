import { eventType } from 'inngest';
import { z } from 'zod';
import { sharedDatabase } from '@/db/client';
import { dueConnections, syncConnection } from '@/server/calendars/sync';
import { inngest } from '../client';

const db = () => sharedDatabase().db;

/** The events of calendar sync (server/calendars/sync.ts), beside their functions as the mailbox's are. */
export const calendarEvents = {
  /** Sync every connection whose sync is due now (the cron does it every minute). */
  calendarsSyncDue: eventType('steward/calendars.sync-due', { schema: z.object({}).loose() }),
  /** Sync one calendar connection now (only `calendarId` of it: a provider's push notification). */
  calendarSyncRequested: eventType('steward/calendar.sync-requested', { schema: z.object({ connectionId: z.string().min(1), calendarId: z.string().min(1).optional() }) }),
};

/**
 * Every minute: each connection whose last sync is older than STEWARD_CALENDAR_SYNC_SECONDS
 * (default 300) gets its sync, one run per connection at a time. The event id names the
 * connection and the minute, so an Inngest server keeps one request per connection per minute.
 */
export const calendarPoll = inngest.createFunction(
  { id: 'calendar-poll', triggers: [{ cron: '* * * * *' }, calendarEvents.calendarsSyncDue] },
  async ({ step }) => {
    const due = await step.run('find', () => dueConnections(db()));
    const minute = Math.floor(Date.now() / 60_000);
    if (due.length) await step.sendEvent('sync', due.map((connectionId) => calendarEvents.calendarSyncRequested.create({ connectionId }, { id: `calendar-sync-${connectionId}-${minute}` })));
    return { due: due.length };
  },
);

/**
 * One connection's sync. A step run again after a crash starts from the stored cursors (each
 * calendar's changes and cursor are written together), so no change is lost or fired twice.
 */
export const calendarSync = inngest.createFunction(
  { id: 'calendar-sync', retries: 1, concurrency: { key: 'event.data.connectionId', limit: 1 }, triggers: [calendarEvents.calendarSyncRequested] },
  async ({ event, step }) => step.run('sync', () => syncConnection(db(), event.data.connectionId, { calendarId: event.data.calendarId })),
);
