import type { CalendarPushDeps } from '@/server/calendars/push-notifications';

/*
 * Composition of the calendars' push (entry floor): a verified notification asks the engine for
 * that calendar's sync (inngest/functions/calendar-sync.ts). The Inngest client is loaded on first
 * use, as server/runtime.ts does (it reads the executor's keys and URL when it loads).
 */
export const calendarPushDeps: CalendarPushDeps = {
  async requestSync({ connectionId, calendarId, id }) {
    const [{ inngest }, { calendarEvents }] = await Promise.all([import('@/inngest/client'), import('@/inngest/functions/calendar-sync')]);
    await inngest.send(calendarEvents.calendarSyncRequested.create({ connectionId, calendarId }, { id }));
  },
};
