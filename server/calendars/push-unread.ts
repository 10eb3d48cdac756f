import { eq } from 'drizzle-orm';
import { calendarConnections } from '@/db/schema';
import type { PreferencesWritten } from '@/server/users/profile';
import { providerForConnection } from './connection-provider';
import { dropUnreadPush, stopDropped } from './push';
import { selectedIds } from './selection';

/*
 * A calendar no longer read stops being pushed with the preferences change that says so (issue
 * 43), whichever way it is written: the hosted Calendar page's choice (./choose.ts) and PATCH
 * /profile (or the tRPC settings.updateProfile) both go through the users area's updateProfile,
 * which calls this hook (filled in server/compose/area-hooks.ts). The channels' rows go in the
 * profile's transaction, the providers are told after its commit (./push.ts). A list naming no
 * calendar reads every one, so nothing is dropped; a list naming only ids that are not the user's
 * calendars reads none, and drops every channel, as the next periodic sync would. A calendar
 * chosen again gets its channel at the next periodic sync, as every channel is made.
 */
export const stopUnreadPush: PreferencesWritten = async (tx, userId, { patch, preferences }) => {
  if (patch.calendars?.read === undefined) return;
  const dropped = await dropUnreadPush(tx, userId, selectedIds(preferences));
  if (!dropped.length) return;
  return (db) =>
    stopDropped(dropped, async (connectionId) => {
      const [connection] = await db.select().from(calendarConnections).where(eq(calendarConnections.id, connectionId));
      return connection ? providerForConnection(db, connection) : null;
    });
};
