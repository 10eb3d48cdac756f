import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { workflowFirings } from '@/db/schema';
import { syncConnection } from '@/server/calendars/sync';
import { connectCalendars } from '../helpers/calendar-oauth';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { useCalendarStandIns } from './stand-ins';

/**
 * A Google calendar through the sync engine, against the loopback stand-in of Calendar API v3:
 * the connection (made by OAuth) is listed with the CalDAV ones, its events read through
 * GET /calendar/events, and an event someone else moved fires event.scheduled (never the first
 * import), one they deleted event.cancelled.
 */
const app = useTestServer();
const db = () => app().database.db;

const providers = useCalendarStandIns();

const HOUR = 3_600_000;
const inHours = (h: number) => new Date(Math.floor(Date.now() / HOUR) * HOUR + h * HOUR);

describe('a Google calendar through the sync engine', () => {
  it('is listed and read like any calendar; an event someone else moved fires event.scheduled, a deleted one event.cancelled', async () => {
    const account = await newAccount(app());
    const user = await newUser(app(), account);
    const key = await userKey(app(), account, user.id);
    const address = `grace.${Date.now().toString(36)}@gmail.test`;
    providers.gmail.addMailbox(address);
    providers.gcal.addUser(address);
    providers.gmail.oauth.consentAs = address;
    expect((await call(app(), `/users/${user.id}/assistants`, { key, body: { name: 'Ada' } })).status).toBeLessThan(300);
    const workflow = async (event: string) => {
      const r = await call(app(), '/skills', { key, body: { kind: 'workflow', name: `g-${event.replace('.', '-')}`, title: event, description: 'Prepare', instructions: 'Prepare.', triggers: [{ on: 'webhook', event }] } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.skill.id as string;
    };
    const scheduled = await workflow('event.scheduled');
    const cancelled = await workflow('event.cancelled');
    const firings = (skillId: string) => db().select().from(workflowFirings).where(eq(workflowFirings.skillId, skillId)).orderBy(workflowFirings.createdAt);

    const standup = providers.gcal.addEvent(address, address, { summary: 'Standup', start: { dateTime: inHours(24).toISOString() }, end: { dateTime: inHours(25).toISOString() } });
    const lunch = providers.gcal.addEvent(address, address, { summary: 'Lunch', start: { dateTime: inHours(48).toISOString() }, end: { dateTime: inHours(49).toISOString() } });
    const { connection } = await connectCalendars(app(), key, 'google');
    expect(await syncConnection(db(), connection.id)).toMatchObject({ ok: true, fired: 0 });
    expect(await firings(scheduled)).toHaveLength(0);

    const listed = await call(app(), '/calendar-connections', { key });
    expect(listed.body.connections).toEqual([expect.objectContaining({ id: connection.id, provider: 'google', username: address, status: 'active', lastSyncError: null })]);
    const q = `from=${encodeURIComponent(inHours(0).toISOString())}&to=${encodeURIComponent(inHours(72).toISOString())}`;
    expect((await call(app(), `/calendar/events?${q}`, { key })).body.events.map((e: { title: string }) => e.title)).toEqual(['Standup', 'Lunch']);

    providers.gcal.changeEvent(address, address, standup.id, { start: { dateTime: inHours(26).toISOString() }, end: { dateTime: inHours(27).toISOString() } });
    providers.gcal.deleteEvent(address, address, lunch.id);
    expect(await syncConnection(db(), connection.id)).toMatchObject({ ok: true, fired: 2 });
    expect((await firings(scheduled)).map((f) => [f.payload.title, f.payload.start])).toEqual([['Standup', inHours(26).toISOString()]]);
    expect((await firings(cancelled)).map((f) => f.payload.title)).toEqual(['Lunch']);
    expect((await call(app(), `/calendar/events?${q}`, { key })).body.events.map((e: { title: string; start: string }) => [e.title, e.start])).toEqual([['Standup', inHours(26).toISOString()]]);
  });
});
