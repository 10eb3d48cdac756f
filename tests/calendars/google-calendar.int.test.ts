import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { calendarConnections, calendarGrants, calendars } from '@/db/schema';
import { googleIdForUid } from '@/server/calendars/google/provider';
import { providerForGrant } from '@/server/calendars/oauth-providers';
import { CalendarConflict, type CalendarProvider } from '@/server/calendars/provider';
import { connect as connectMailbox, dumpDatabase } from '../mailboxes/support/flow';
import { beginCalendarConnect, connectCalendars } from '../helpers/calendar-oauth';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { GOOGLE_CALENDAR_SCOPE, startGoogleCalendarFake, type GoogleCalendarFake } from '../helpers/google-calendar-fake';
import { useTestServer } from '../helpers/server';
import { useCalendarStandIns } from './stand-ins';

/**
 * Google Calendar through OAuth, against loopback stand-ins of Google's OAuth endpoints and the
 * Gmail API (tests/helpers/gmail-fake.ts) and of the Calendar API v3 sharing their grants
 * (tests/helpers/google-calendar-fake.ts): a user with Gmail connected grants calendars in one
 * step through the mailbox's client and callback; the provider adapter then syncs with sync
 * tokens (410 → a full sync), sees an event someone else moved, and writes with the etag it read
 * (a stale one is the typed conflict, and nothing is written).
 */
const app = useTestServer();
const db = () => app().database.db;

const providers = useCalendarStandIns();

let n = 0;
const HOUR = 3_600_000;
const inHours = (h: number) => new Date(Math.floor(Date.now() / HOUR) * HOUR + h * HOUR);

/** A user whose Google account has Gmail and a calendar; `withMailbox`: their mailbox is connected first. */
async function googleUser(o: { withMailbox?: boolean } = {}) {
  const account = await newAccount(app());
  const user = await newUser(app(), account);
  const key = await userKey(app(), account, user.id);
  const address = `ada${++n}.${Date.now().toString(36)}@gmail.test`;
  providers.gmail.addMailbox(address);
  providers.gcal.addUser(address);
  providers.gmail.oauth.consentAs = address;
  if (o.withMailbox) await connectMailbox(app(), key, 'gmail');
  return { account, user, key, address };
}

async function providerOf(connectionId: string): Promise<CalendarProvider> {
  const [c] = await db().select().from(calendarConnections).where(eq(calendarConnections.id, connectionId));
  const [grant] = await db().select().from(calendarGrants).where(eq(calendarGrants.id, c.grantId!));
  return providerForGrant(db(), grant);
}

describe('connecting Google calendars', () => {
  it('asks a user with Gmail connected only for the calendar scope, through the mailbox client and callback, and records the connection and its calendars', async () => {
    const { key, address, user } = await googleUser({ withMailbox: true });
    providers.gcal.addCalendar(address, { id: 'team@group.calendar.google.com', summary: 'Team', accessRole: 'reader' });
    providers.gcal.addCalendar(address, { id: 'busy@group.calendar.google.com', summary: 'Only busy', accessRole: 'freeBusyReader' });

    const { flow, connection } = await connectCalendars(app(), key, 'google');
    const q = flow.authorizeUrl.searchParams;
    // One step: the calendar scope alone (Google keeps the mail scopes already granted), for the mailbox's account.
    expect(q.get('scope')).toBe(GOOGLE_CALENDAR_SCOPE);
    expect(q.get('include_granted_scopes')).toBe('true');
    expect(q.get('login_hint')).toBe(address);
    expect(q.get('client_id')).toBe(providers.gmail.oauth.clientId);
    expect(q.get('redirect_uri')).toBe(`${process.env.STEWARD_PUBLIC_URL}/api/oauth/callback/gmail`);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(providers.gmail.oauth.pkceChecks.at(-1)).toMatchObject({ challenge: q.get('code_challenge'), ok: true });

    expect(connection).toMatchObject({ provider: 'google', username: address, status: 'active' });
    // The free/busy-only calendar cannot be read: it is not offered.
    expect(connection.calendars.map((c) => ({ name: c.name, primary: c.primary, readOnly: c.readOnly })).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: address, primary: true, readOnly: false },
      { name: 'Team', primary: false, readOnly: true },
    ]);
    const [row] = await db().select().from(calendarConnections).where(eq(calendarConnections.id, connection.id));
    expect(row).toMatchObject({ userId: user.id, provider: 'google' });

    // The mailbox is untouched by it.
    expect((await call(app(), '/mailbox', { key })).body.mailbox).toMatchObject({ provider: 'gmail', address, status: 'connected' });
    // No token in a database dump; none in the answer.
    const dump = await dumpDatabase(app());
    for (const t of providers.gmail.oauth.issued) expect(dump).not.toContain(t);
    expect(JSON.stringify(connection)).not.toMatch(/at-|rt-/);

    // The state was used once: the same callback again is refused, and another browser cannot finish a flow.
    expect((await fetch(flow.callback, { headers: { cookie: flow.cookie } })).status).toBe(400);
    const other = await beginCalendarConnect(app(), key, 'google');
    expect((await fetch(other.callback)).status).toBe(403);
  });

  it('connecting the same account again keeps one connection and its calendars', async () => {
    const { key } = await googleUser();
    const first = (await connectCalendars(app(), key, 'google')).connection;
    const again = (await connectCalendars(app(), key, 'google')).connection;
    expect(again.id).toBe(first.id);
    expect(await db().select().from(calendars).where(eq(calendars.connectionId, first.id))).toHaveLength(1);
  });

  it('a refused consent connects nothing', async () => {
    const { key, user } = await googleUser();
    providers.gmail.oauth.denyNext = true;
    const flow = await beginCalendarConnect(app(), key, 'google');
    const done = await flow.finish();
    expect(done.status).toBe(403);
    expect(await db().select().from(calendarConnections).where(eq(calendarConnections.userId, user.id))).toHaveLength(0);
  });
});

describe('the Google Calendar adapter', () => {
  it('syncs in full, then only what changed since the sync token; an event someone else moved comes back with its new time', async () => {
    const { key, address } = await googleUser();
    const standup = providers.gcal.addEvent(address, address, { summary: 'Standup', start: { dateTime: inHours(24).toISOString() }, end: { dateTime: inHours(25).toISOString() } });
    const lunch = providers.gcal.addEvent(
      address,
      address,
      { summary: 'Lunch with Bo', location: 'Café', start: { dateTime: inHours(48).toISOString(), timeZone: 'Europe/Paris' }, end: { dateTime: inHours(49).toISOString() }, attendees: [{ email: 'bo@example.com', displayName: 'Bo' }, { email: address }] },
      { organizer: 'bo@example.com' },
    );
    providers.gcal.addEvent(address, address, { summary: 'Holiday', start: { date: '2031-07-14' }, end: { date: '2031-07-15' } });
    providers.gcal.addEvent(address, address, { summary: 'Weekly', start: { dateTime: inHours(30).toISOString(), timeZone: 'Europe/Paris' }, end: { dateTime: inHours(31).toISOString(), timeZone: 'Europe/Paris' }, recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=MO'] });
    const { connection } = await connectCalendars(app(), key, 'google');
    const provider = await providerOf(connection.id);
    const cal = { remoteId: address, cursor: null, timezone: 'Europe/Paris' };

    const full = await provider.sync(cal);
    expect(full.full).toBe(true);
    expect(full.changed.map((e) => e.title).sort()).toEqual(['Holiday', 'Lunch with Bo', 'Standup', 'Weekly']);
    const byTitle = Object.fromEntries(full.changed.map((e) => [e.title, e]));
    expect(byTitle['Lunch with Bo']).toMatchObject({
      providerEventId: lunch.id,
      uid: lunch.iCalUID,
      etag: lunch.etag,
      location: 'Café',
      organizer: 'bo@example.com',
      timezone: 'Europe/Paris',
      allDay: false,
      attendees: [
        { email: 'bo@example.com', name: 'Bo', response: 'accepted' },
        { email: address, name: null, response: 'needs-action' },
      ],
    });
    expect(byTitle['Lunch with Bo'].start.toISOString()).toBe(inHours(48).toISOString());
    expect(byTitle.Holiday).toMatchObject({ allDay: true, start: new Date('2031-07-14T00:00:00Z'), end: new Date('2031-07-15T00:00:00Z') });
    expect(byTitle.Weekly.recurrence).toEqual(['RRULE:FREQ=WEEKLY;BYDAY=MO']);
    expect(full.cursor).toBeTruthy();

    // Nothing changed: an incremental sync from the token returns nothing.
    const quiet = await provider.sync({ ...cal, cursor: full.cursor });
    expect(quiet).toMatchObject({ full: false, changed: [], deleted: [] });

    // Someone else moves the standup and deletes lunch.
    providers.gcal.changeEvent(address, address, standup.id, { start: { dateTime: inHours(26).toISOString() }, end: { dateTime: inHours(27).toISOString() } });
    providers.gcal.deleteEvent(address, address, lunch.id);
    const since = await provider.sync({ ...cal, cursor: quiet.cursor });
    expect(since.full).toBe(false);
    expect(since.changed).toHaveLength(1);
    expect(since.changed[0]).toMatchObject({ providerEventId: standup.id, title: 'Standup' });
    expect(since.changed[0].start.toISOString()).toBe(inHours(26).toISOString());
    expect(since.changed[0].etag).not.toBe(standup.etag);
    expect(since.deleted).toEqual([lunch.id]);
    expect(providers.gcal.calls.filter((c) => c.path.includes('syncToken=')).length).toBeGreaterThanOrEqual(2);
  });

  it('falls back to a full sync when Google answers 410 to an expired sync token', async () => {
    const { key, address } = await googleUser();
    providers.gcal.addEvent(address, address, { summary: 'Kept', start: { dateTime: inHours(5).toISOString() }, end: { dateTime: inHours(6).toISOString() } });
    const { connection } = await connectCalendars(app(), key, 'google');
    const provider = await providerOf(connection.id);
    const first = await provider.sync({ remoteId: address, cursor: null, timezone: null });

    providers.gcal.expireSyncTokens(address, address);
    providers.gcal.addEvent(address, address, { summary: 'New', start: { dateTime: inHours(7).toISOString() }, end: { dateTime: inHours(8).toISOString() } });
    const calls = providers.gcal.calls.length;
    const again = await provider.sync({ remoteId: address, cursor: first.cursor, timezone: null });
    expect(again.full).toBe(true);
    expect(again.changed.map((e) => e.title).sort()).toEqual(['Kept', 'New']);
    expect(again.cursor).not.toBe(first.cursor);
    // The expired token was tried once (410), then a full listing without it.
    const after = providers.gcal.calls.slice(calls).map((c) => c.path);
    expect(after[0]).toContain('syncToken=');
    expect(after[1]).not.toContain('syncToken=');
    // The new token works.
    expect((await provider.sync({ remoteId: address, cursor: again.cursor, timezone: null })).full).toBe(false);
  });

  it('writes with the etag it read: a stale etag is the typed conflict and changes nothing; creates are made once per UID', async () => {
    const { key, address } = await googleUser();
    const { connection } = await connectCalendars(app(), key, 'google');
    const provider = await providerOf(connection.id);
    const cal = { remoteId: address };

    const uid = `steward-${Date.now()}@example.test`;
    const draft = { uid, title: 'Review', start: inHours(72), end: inHours(73), attendees: [{ email: 'cy@example.com', name: 'Cy' }], location: 'Room 1' };
    const made = await provider.create(cal, draft);
    expect(made).toMatchObject({ providerEventId: googleIdForUid(uid), title: 'Review', location: 'Room 1', attendees: [{ email: 'cy@example.com', name: 'Cy', response: 'needs-action' }] });
    expect(providers.gcal.writes.at(-1)).toMatchObject({ method: 'POST', sendUpdates: 'all', status: 200 });
    // A retry of the same create (its answer lost) finds the event the first one made.
    const again = await provider.create(cal, draft);
    expect(again.providerEventId).toBe(made.providerEventId);
    expect(providers.gcal.events(address, address).filter((e) => e.summary === 'Review')).toHaveLength(1);
    expect(await provider.findByUid(cal, uid)).toMatchObject({ providerEventId: made.providerEventId });
    expect(await provider.findByUid(cal, 'unknown@example.test')).toBeNull();

    // Someone else renames it: the etag Steward holds is stale.
    providers.gcal.changeEvent(address, address, made.providerEventId, { summary: 'Review (moved by Cy)' });
    const writes = providers.gcal.writes.length;
    await expect(provider.update(cal, { providerEventId: made.providerEventId, etag: made.etag }, { start: inHours(74), end: inHours(75) })).rejects.toBeInstanceOf(CalendarConflict);
    await expect(provider.cancel(cal, { providerEventId: made.providerEventId, etag: made.etag })).rejects.toBeInstanceOf(CalendarConflict);
    expect(providers.gcal.writes.slice(writes).map((w) => [w.method, w.status, w.ifMatch])).toEqual([
      ['PATCH', 412, made.etag],
      ['DELETE', 412, made.etag],
    ]);
    expect(providers.gcal.event(address, address, made.providerEventId)).toMatchObject({ summary: 'Review (moved by Cy)', status: 'confirmed' });
    expect(providers.gcal.event(address, address, made.providerEventId)!.start.dateTime).toBe(inHours(72).toISOString());

    // With the etag as it stands, the change goes through, then the cancel.
    const current = providers.gcal.event(address, address, made.providerEventId)!;
    const moved = await provider.update(cal, { providerEventId: made.providerEventId, etag: current.etag }, { start: inHours(74), end: inHours(75) });
    expect(moved.start.toISOString()).toBe(inHours(74).toISOString());
    expect(providers.gcal.writes.at(-1)).toMatchObject({ method: 'PATCH', status: 200, sendUpdates: 'all', ifMatch: current.etag });
    await provider.cancel(cal, { providerEventId: made.providerEventId, etag: moved.etag });
    expect(providers.gcal.event(address, address, made.providerEventId)).toMatchObject({ status: 'cancelled' });
    expect(providers.gcal.writes.at(-1)).toMatchObject({ method: 'DELETE', status: 204, sendUpdates: 'all' });
    // Cancelling what is already gone (a retry) is done, not an error.
    await provider.cancel(cal, { providerEventId: made.providerEventId, etag: null });
  });

  it('refreshes an expired access token and goes on', async () => {
    const { key, address } = await googleUser();
    const { connection } = await connectCalendars(app(), key, 'google');
    const provider = await providerOf(connection.id);
    providers.gmail.oauth.expireAccessTokens();
    const calendarsSeen = await provider.listCalendars();
    expect(calendarsSeen.map((c) => c.remoteId)).toEqual([address]);
    const refreshed = providers.gcal.calls.filter((c) => c.user === address).at(-1)!;
    expect(refreshed.authorization).toMatch(/^Bearer at-/);
  });
});
