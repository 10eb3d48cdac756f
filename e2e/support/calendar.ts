import { eq } from 'drizzle-orm';
import { connect } from '../../db/client';
import { calendarConnections, users } from '../../db/schema';
import type { UserActor } from '../../server/access/actor';
import { connectCaldav } from '../../server/calendars/connections';
import { startRadicale, type Radicale } from '../../tests/helpers/radicale';

/*
 * A real CalDAV calendar for the hosted app's specs: Debian's Radicale on loopback (as the
 * calendar tests start it), a person's calendars and events put on it the way another client
 * would, and the connection made through the same service POST /calendar-connections calls.
 * The app under test refuses loopback CalDAV addresses (it runs without
 * STEWARD_PROVIDER_ALLOWED_RANGES), so the connection is made from here, with the range allowed
 * for this process only, against the run's database (E2E_DATABASE_URL); the app then reads the
 * local copy the first sync wrote, as it would after any connection.
 */

export type SeedEvent = { uid: string; calendar: string; title: string; start: Date; end: Date; location?: string };

const utc = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const ics = (e: SeedEvent) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Steward e2e//EN',
    'BEGIN:VEVENT',
    `UID:${e.uid}`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${utc(e.start)}`,
    `DTEND:${utc(e.end)}`,
    `SUMMARY:${e.title.replace(/[\\;,]/g, (c) => `\\${c}`)}`,
    ...(e.location ? [`LOCATION:${e.location}`] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

export const startCalendarServer = (): Promise<Radicale> => startRadicale();

const database = () => {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error('E2E_DATABASE_URL is not set (e2e/global-setup.ts sets it)');
  return connect(url);
};

/**
 * Puts the person's calendars (slug → name and colour) and events on the server and connects
 * them; answers the connection's id and the CalDAV username.
 */
export async function connectSeededCalendar(
  radicale: Radicale,
  email: string,
  calendars: Record<string, { name: string; color?: string }>,
  events: SeedEvent[],
): Promise<{ connectionId: string; username: string }> {
  const username = `dav-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const password = `app-${Math.random().toString(36).slice(2)}`;
  radicale.addUser(username, password);
  for (const [slug, c] of Object.entries(calendars)) await radicale.makeCalendar(username, slug, c);
  for (const e of events) {
    const put = await radicale.put(username, e.calendar, `${e.uid}.ics`, ics(e));
    if (put.status >= 300) throw new Error(`PUT ${e.uid}: ${put.status}`);
  }
  const previous = process.env.STEWARD_PROVIDER_ALLOWED_RANGES;
  Object.assign(process.env, radicale.env);
  const { db, close } = database();
  try {
    const [user] = await db.select().from(users).where(eq(users.email, email));
    if (!user) throw new Error(`no user ${email}`);
    const actor: UserActor = {
      accountId: user.accountId,
      credential: { kind: 'portal_session', method: 'email' },
      level: 'user',
      organizationId: user.organizationId,
      user,
      actingVia: 'portal_session',
      scopes: [],
      account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null },
    };
    const made = await connectCaldav(db, actor, { url: radicale.url, username, password });
    return { connectionId: made.connection.id, username };
  } finally {
    if (previous === undefined) delete process.env.STEWARD_PROVIDER_ALLOWED_RANGES;
    else process.env.STEWARD_PROVIDER_ALLOWED_RANGES = previous;
    await close();
  }
}

/** What a provider does to a connection: revoke its access (the state the page offers to repair). */
export async function markConnection(connectionId: string, status: 'failing' | 'revoked', error: string) {
  const { db, close } = database();
  try {
    await db.update(calendarConnections).set({ status, lastSyncError: error, failingSince: new Date() }).where(eq(calendarConnections.id, connectionId));
  } finally {
    await close();
  }
}
