import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarConnections, calendarGrants } from '@/db/schema';
import { providerForGrant } from '@/server/calendars/oauth-providers';
import { CalendarConflict, type CalendarProvider } from '@/server/calendars/provider';
import { connect as connectMailbox, dumpDatabase } from '../mailboxes/support/flow';
import { beginCalendarConnect, connectCalendars } from '../helpers/calendar-oauth';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { startGraphCalendarFake, type GraphCalendarFake } from '../helpers/graph-calendar-fake';
import { startGraphFake, type GraphFake } from '../helpers/graph-fake';
import { useTestServer } from '../helpers/server';

/**
 * Microsoft 365 calendars through OAuth, against loopback stand-ins of the Microsoft identity
 * platform and Graph mail (tests/helpers/graph-fake.ts) and Graph calendars in front of it,
 * sharing its grants (tests/helpers/graph-calendar-fake.ts): a user with their Outlook mailbox
 * connected grants Calendars.ReadWrite in one step through the mailbox's client and callback; the
 * adapter then syncs the calendar view's delta (410 → a new round), sees an event someone else
 * moved, and writes with the @odata.etag it read (a stale one is the typed conflict).
 */
const app = useTestServer();
const db = () => app().database.db;
let mail: GraphFake;
let graph: GraphCalendarFake;
const ENV = ['MICROSOFT_CLIENT_ID', 'MICROSOFT_CLIENT_SECRET', 'STEWARD_MICROSOFT_LOGIN_URL', 'STEWARD_GRAPH_API_URL', 'MICROSOFT_TENANT'];

beforeAll(async () => {
  mail = await startGraphFake();
  graph = await startGraphCalendarFake({ mail });
  Object.assign(process.env, graph.env);
});
afterAll(async () => {
  for (const k of ENV) delete process.env[k];
  await graph?.close();
  await mail?.close();
});

let n = 0;
const HOUR = 3_600_000;
const inHours = (h: number) => new Date(Math.floor(Date.now() / HOUR) * HOUR + h * HOUR);

async function msUser(o: { withMailbox?: boolean } = {}) {
  const account = await newAccount(app());
  const user = await newUser(app(), account);
  const key = await userKey(app(), account, user.id);
  const address = `ada${++n}.${Date.now().toString(36)}@contoso.test`;
  mail.addMailbox(address);
  graph.addUser(address);
  mail.oauth.consentAs = address;
  if (o.withMailbox) await connectMailbox(app(), key, 'outlook');
  return { account, user, key, address, calendarId: graph.defaultCalendarId(address) };
}

async function providerOf(connectionId: string): Promise<CalendarProvider> {
  const [c] = await db().select().from(calendarConnections).where(eq(calendarConnections.id, connectionId));
  const [grant] = await db().select().from(calendarGrants).where(eq(calendarGrants.id, c.grantId!));
  return providerForGrant(db(), grant);
}

describe('connecting Microsoft 365 calendars', () => {
  it('asks a user with Outlook connected only for Calendars.ReadWrite, through the mailbox client and callback', async () => {
    const { key, address } = await msUser({ withMailbox: true });
    graph.addCalendar(address, { name: 'Birthdays', canEdit: false });

    const { flow, connection } = await connectCalendars(app(), key, 'microsoft');
    const q = flow.authorizeUrl.searchParams;
    const origin = new URL(graph.env.STEWARD_GRAPH_API_URL).origin;
    expect(q.get('scope')?.split(' ')).toEqual(['offline_access', `${origin}/User.Read`, `${origin}/Calendars.ReadWrite`]);
    expect(q.get('login_hint')).toBe(address);
    expect(q.get('client_id')).toBe(mail.oauth.clientId);
    expect(q.get('redirect_uri')).toBe(`${process.env.STEWARD_PUBLIC_URL}/api/oauth/callback/outlook`);
    expect(mail.oauth.pkceChecks.at(-1)).toMatchObject({ challenge: q.get('code_challenge'), ok: true });

    expect(connection).toMatchObject({ provider: 'microsoft', username: address, status: 'active' });
    expect(connection.calendars.map((c) => ({ name: c.name, primary: c.primary, readOnly: c.readOnly })).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'Birthdays', primary: false, readOnly: true },
      { name: 'Calendar', primary: true, readOnly: false },
    ]);
    expect((await call(app(), '/mailbox', { key })).body.mailbox).toMatchObject({ provider: 'outlook', address, status: 'connected' });
    const dump = await dumpDatabase(app());
    for (const t of mail.oauth.issued) expect(dump).not.toContain(t);
  });

  it('a mailbox token without Calendars.ReadWrite cannot read calendars (the stand-in checks scopes)', async () => {
    const { address } = await msUser({ withMailbox: true });
    const before = graph.calls.length;
    const mailToken = mail.calls.filter((c) => c.user === address).at(-1)!.authorization!;
    const res = await fetch(`${graph.env.STEWARD_GRAPH_API_URL}/me/calendars`, { headers: { Authorization: mailToken } });
    expect(res.status).toBe(403);
    expect(graph.calls.length).toBe(before + 1);
  });

  it('a refused consent connects nothing; a callback in another browser is refused', async () => {
    const { key, user } = await msUser();
    mail.oauth.denyNext = true;
    expect((await (await beginCalendarConnect(app(), key, 'microsoft')).finish()).status).toBe(403);
    const other = await beginCalendarConnect(app(), key, 'microsoft');
    expect((await fetch(other.callback)).status).toBe(403);
    expect(await db().select().from(calendarConnections).where(eq(calendarConnections.userId, user.id))).toHaveLength(0);
  });
});

describe('the Microsoft Graph calendar adapter', () => {
  it('syncs the calendar view in full, then its delta; an event someone else moved comes back with its new time', async () => {
    const { key, address, calendarId } = await msUser();
    const standup = graph.addEvent(address, null, { subject: 'Standup', start: inHours(24), end: inHours(25) });
    const lunch = graph.addEvent(address, null, { subject: 'Lunch with Bo', start: inHours(48), end: inHours(49), attendees: [address], location: 'Café', body: 'Bring the plan' }, { organizer: 'bo@example.com' });
    graph.addEvent(address, null, { subject: 'Long ago', start: new Date(Date.now() - 400 * 24 * HOUR), end: new Date(Date.now() - 400 * 24 * HOUR + HOUR) });
    const { connection } = await connectCalendars(app(), key, 'microsoft');
    const provider = await providerOf(connection.id);
    const cal = { remoteId: calendarId, cursor: null, timezone: null };

    const full = await provider.sync(cal);
    expect(full.full).toBe(true);
    // Outside the window (more than 180 days ago): not read.
    expect(full.changed.map((e) => e.title).sort()).toEqual(['Lunch with Bo', 'Standup']);
    const got = full.changed.find((e) => e.title === 'Lunch with Bo')!;
    expect(got).toMatchObject({ providerEventId: lunch.id, uid: lunch.iCalUId, etag: lunch['@odata.etag'], location: 'Café', description: 'Bring the plan', organizer: 'bo@example.com', allDay: false });
    expect(got.attendees).toEqual([{ email: address, name: address, response: 'needs-action' }]);
    expect(got.start.toISOString()).toBe(inHours(48).toISOString());
    // Asked in UTC, with immutable ids.
    expect(graph.calls.find((c) => c.path.includes('calendarView/delta'))!.prefer).toContain('outlook.timezone="UTC"');

    const quiet = await provider.sync({ ...cal, cursor: full.cursor });
    expect(quiet).toMatchObject({ full: false, changed: [], deleted: [] });

    graph.changeEvent(address, standup.id, { start: inHours(26), end: inHours(27) });
    graph.deleteEvent(address, lunch.id);
    const since = await provider.sync({ ...cal, cursor: quiet.cursor });
    expect(since.full).toBe(false);
    expect(since.changed.map((e) => [e.providerEventId, e.start.toISOString()])).toEqual([[standup.id, inHours(26).toISOString()]]);
    expect(since.deleted).toEqual([lunch.id]);
  });

  it('begins a new round when Graph answers 410 to an expired delta link', async () => {
    const { key, address, calendarId } = await msUser();
    graph.addEvent(address, null, { subject: 'Kept', start: inHours(5), end: inHours(6) });
    const { connection } = await connectCalendars(app(), key, 'microsoft');
    const provider = await providerOf(connection.id);
    const first = await provider.sync({ remoteId: calendarId, cursor: null, timezone: null });
    graph.expireDeltaTokens(address, calendarId);
    graph.addEvent(address, null, { subject: 'New', start: inHours(7), end: inHours(8) });
    const calls = graph.calls.length;
    const again = await provider.sync({ remoteId: calendarId, cursor: first.cursor, timezone: null });
    expect(again.full).toBe(true);
    expect(again.changed.map((e) => e.title).sort()).toEqual(['Kept', 'New']);
    const paths = graph.calls.slice(calls).map((c) => c.path);
    expect(paths[0]).toContain('$deltatoken=');
    expect(paths[1]).toContain('startDateTime=');
    expect((await provider.sync({ remoteId: calendarId, cursor: again.cursor, timezone: null })).full).toBe(false);
  });

  it('writes with the @odata.etag it read: a stale one is the typed conflict; a create is made once per UID; the organizer cancels with a message', async () => {
    const { key, address, calendarId } = await msUser();
    const { connection } = await connectCalendars(app(), key, 'microsoft');
    const provider = await providerOf(connection.id);
    const cal = { remoteId: calendarId };

    const uid = `steward-${Date.now()}@example.test`;
    const draft = { uid, title: 'Review', start: inHours(72), end: inHours(73), attendees: [{ email: 'cy@example.com', name: 'Cy' }], conference: true };
    const made = await provider.create(cal, draft);
    expect(made).toMatchObject({ title: 'Review', organizer: address, attendees: [{ email: 'cy@example.com', name: 'Cy', response: 'needs-action' }] });
    expect(made.start.toISOString()).toBe(inHours(72).toISOString());
    expect(graph.writes.at(-1)!.body).toMatchObject({ transactionId: uid, isOnlineMeeting: true, start: { timeZone: 'UTC' } });
    const again = await provider.create(cal, draft);
    expect(again.providerEventId).toBe(made.providerEventId);
    expect(graph.events(address).filter((e) => e.subject === 'Review')).toHaveLength(1);
    expect(await provider.findByUid(cal, uid)).toMatchObject({ providerEventId: made.providerEventId });
    expect(await provider.findByUid(cal, 'unknown@example.test')).toBeNull();

    graph.changeEvent(address, made.providerEventId, { subject: 'Review (renamed by Cy)' });
    const writes = graph.writes.length;
    await expect(provider.update(cal, { providerEventId: made.providerEventId, etag: made.etag }, { start: inHours(74), end: inHours(75) })).rejects.toBeInstanceOf(CalendarConflict);
    await expect(provider.cancel(cal, { providerEventId: made.providerEventId, etag: made.etag }, 'Sorry')).rejects.toBeInstanceOf(CalendarConflict);
    expect(graph.writes.slice(writes).map((w) => [w.method, w.status, w.ifMatch])).toEqual([['PATCH', 412, made.etag]]);
    expect(graph.event(address, made.providerEventId)).toMatchObject({ subject: 'Review (renamed by Cy)', deleted: false });
    expect(graph.cancellations).toHaveLength(0);

    const current = graph.event(address, made.providerEventId)!;
    const moved = await provider.update(cal, { providerEventId: made.providerEventId, etag: current['@odata.etag'] }, { start: inHours(74), end: inHours(75) });
    expect(moved.start.toISOString()).toBe(inHours(74).toISOString());
    expect(graph.writes.at(-1)).toMatchObject({ method: 'PATCH', status: 200, ifMatch: current['@odata.etag'] });
    await provider.cancel(cal, { providerEventId: made.providerEventId, etag: moved.etag }, 'Sorry, something came up');
    expect(graph.cancellations).toEqual([{ user: address, eventId: made.providerEventId, comment: 'Sorry, something came up', attendees: ['cy@example.com'] }]);
    expect(graph.event(address, made.providerEventId)).toMatchObject({ deleted: true });
    await provider.cancel(cal, { providerEventId: made.providerEventId, etag: null });
  });

  it('refreshes an expired access token (Microsoft rotates the refresh token) and goes on', async () => {
    const { key, address, calendarId } = await msUser();
    const { connection } = await connectCalendars(app(), key, 'microsoft');
    const provider = await providerOf(connection.id);
    mail.oauth.expireAccessTokens();
    expect((await provider.listCalendars()).map((c) => c.remoteId)).toEqual([calendarId]);
    mail.oauth.expireAccessTokens();
    expect((await provider.listCalendars()).map((c) => c.remoteId)).toEqual([calendarId]);
    expect(graph.calls.filter((c) => c.user === address && c.path === '/v1.0/me/calendars?$top=100').length).toBeGreaterThanOrEqual(2);
  });
});
