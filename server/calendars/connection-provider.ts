import type { Db, Tx } from '@/db/client';
import type { CalendarConnectionRow } from '@/db/schema';
import { openJson } from '@/server/secrets/sealed';
import { caldavProvider } from './caldav/provider';
import { oauthProviderFor } from './oauth-providers';
import type { CalendarProvider } from './provider';

/*
 * The provider adapter of a stored connection: CalDAV from its URL, username and sealed app
 * password; Google and Microsoft through the OAuth grant it points at.
 */

/** The purpose a CalDAV password is sealed for (server/secrets/sealed.ts). */
export const CALDAV_SECRET = 'calendar-caldav-password';

export async function providerForConnection(db: Tx, connection: CalendarConnectionRow): Promise<CalendarProvider> {
  if (connection.provider !== 'caldav') return oauthProviderFor(db, connection);
  const { password } = await openJson<{ password: string }>(db as Db, connection.secret!, CALDAV_SECRET);
  return caldavProvider({ url: connection.url!, username: connection.username!, password });
}
