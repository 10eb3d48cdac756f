import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowFirings } from '@/db/schema';
import { syncConnection } from '@/server/calendars/sync';
import { toWall } from '@/server/calendars/zones';
import { useCartHarness } from '../approvals/execution-harness';
import { connectCalendars } from '../helpers/calendar-oauth';
import { call, newAccount } from '../helpers/client';
import { startGraphCalendarFake, type GraphCalendarFake } from '../helpers/graph-calendar-fake';
import { startGraphFake, type GraphFake } from '../helpers/graph-fake';
import { useCalendarStandIns } from './stand-ins';

/**
 * One occurrence of a recurring series changed or cancelled through approved dispatches (issue
 * 43): against a real CalDAV server (Radicale: a RECURRENCE-ID override, an EXDATE, If-Match on
 * the resource) and the Google Calendar stand-in (the instance, by events.instances and its
 * instance id). What a user can see: the resource or the instances at the provider, GET
 * /calendar/events at once (that occurrence moved or gone, the others untouched), the firings of
 * their workflows, and a later sync that finds nothing further to change or fire.
 */
const h = useCartHarness();
const { app, person, stagingRun, cartOfRun, cartReaches, dispatchRow, readCart, approve } = h;
const db = () => h.db();
const providers = useCalendarStandIns({ radicale: true });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const unfold = (ics: string) => ics.replace(/\r?\n[ \t]/g, '');
const wall = (d: Date, zone: string) => toWall(d, zone).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z/, '');
let n = 0;

type Person = Awaited<ReturnType<typeof person>>;
type Shown = { id: string; title: string; start: string; end: string };

const events = async (key: string, from: Date, to: Date): Promise<Shown[]> => {
  const r = await call(app(), `/calendar/events?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.events;
};

async function released(p: Person, calls: Array<{ name: string; arguments: unknown }>) {
  const { runId } = await stagingRun(p, calls, { approvalMode: 'manual' });
  const cart = await cartOfRun(runId);
  expect(cart.status).toBe('pending_approval');
  const { contentHash, dispatches } = await readCart(p, cart.id);
  expect((await approve(p, cart.id, { contentHash })).status).toBe(200);
  const settled = await cartReaches(cart.id, ['executed', 'failed']);
  return { cart: settled, dispatch: await dispatchRow(cart.id), shown: dispatches[0] };
}

/** Workflows listening for event.scheduled and event.cancelled; answers each one's firings. */
async function listening(p: Person) {
  expect((await call(app(), `/users/${p.id}/assistants`, { key: p.key, body: { name: 'Ada' } })).status).toBeLessThan(300);
  const workflow = async (event: string) => {
    const r = await call(app(), '/skills', { key: p.key, body: { kind: 'workflow', name: `o-${event.replace('.', '-')}`, title: event, description: 'Prepare', instructions: 'Prepare.', triggers: [{ on: 'webhook', event }] } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.skill.id as string;
  };
  const ids = { scheduled: await workflow('event.scheduled'), cancelled: await workflow('event.cancelled') };
  const firings = (skillId: string) => db().select().from(workflowFirings).where(eq(workflowFirings.skillId, skillId)).orderBy(workflowFirings.createdAt);
  return { scheduled: () => firings(ids.scheduled), cancelled: () => firings(ids.cancelled) };
}

describe('one occurrence of a CalDAV series', () => {
  it('is moved (a RECURRENCE-ID override) and another cancelled (an EXDATE), on the server and in the reads at once; the next sync changes nothing', async () => {
    const p = await person(await newAccount(app()));
    const dav = `occ${++n}${Date.now().toString(36)}`;
    const password = `pw-${Math.random().toString(36).slice(2)}`;
    providers.radicale.addUser(dav, password);
    await providers.radicale.makeCalendar(dav, 'work', { name: 'Work' });
    const res = await call(app(), '/calendar-connections', { key: p.key, body: { provider: 'caldav', url: providers.radicale.url, username: dav, password } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const connectionId = res.body.connection.id as string;
    const fired = await listening(p);

    // A daily standup at 09:00 Berlin time, five days from the day after tomorrow.
    const zone = 'Europe/Berlin';
    const first = new Date(Math.floor(Date.now() / DAY) * DAY + 2 * DAY);
    const day = wall(first, 'UTC').slice(0, 8);
    const series = [
      'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//EN', 'BEGIN:VEVENT', 'UID:standup-series', 'DTSTAMP:20260101T000000Z',
      `DTSTART;TZID=${zone}:${day}T090000`, `DTEND;TZID=${zone}:${day}T091500`, 'RRULE:FREQ=DAILY;COUNT=5', 'SUMMARY:Standup', 'END:VEVENT', 'END:VCALENDAR', '',
    ].join('\r\n');
    expect((await providers.radicale.put(dav, 'work', 'standup.ics', series)).status).toBeLessThan(300);
    expect((await syncConnection(db(), connectionId)).ok).toBe(true);
    const from = new Date(first.getTime() - DAY);
    const to = new Date(first.getTime() + 8 * DAY);
    const before = await events(p.key, from, to);
    expect(before.map((e) => e.title)).toEqual(['Standup', 'Standup', 'Standup', 'Standup', 'Standup']);
    const [, second, , fourth] = before;
    expect(second.id).toMatch(/_\d{8}T\d{6}Z$/);
    // The series came after the first import: its sync fired once for it.
    expect((await fired.scheduled()).map((f) => f.payload.title)).toEqual(['Standup']);

    // The second one moved two hours later and renamed: that occurrence only.
    const later = new Date(Date.parse(second.start) + 2 * HOUR);
    const moved = await released(p, [{ name: 'update_calendar_event', arguments: { eventId: second.id, title: 'Standup (late)', start: later.toISOString(), end: new Date(later.getTime() + 15 * 60_000).toISOString() } }]);
    expect(moved.cart.status, moved.dispatch.failureReason ?? '').toBe('executed');
    expect(moved.shown.payload).toMatchObject({ operation: 'update', occurrence: second.start, start: later.toISOString() });
    expect(moved.shown.description).toMatch(/occurrence/);

    // The fourth one cancelled.
    const gone = await released(p, [{ name: 'cancel_calendar_event', arguments: { eventId: fourth.id } }]);
    expect(gone.cart.status, gone.dispatch.failureReason ?? '').toBe('executed');

    // On the server: one resource with the override and the EXDATE, in the series' own zone.
    const ics = unfold((await providers.radicale.get(dav, 'work', 'standup.ics')).body);
    expect(ics).toContain(`RECURRENCE-ID;TZID=${zone}:${wall(new Date(second.start), zone)}`);
    expect(ics).toContain('SUMMARY:Standup (late)');
    expect(ics).toMatch(new RegExp(`EXDATE;TZID=${zone}:${wall(new Date(fourth.start), zone)}`));
    expect(ics).toContain('RRULE:FREQ=DAILY;COUNT=5');

    // Through the API at once: four occurrences, the second moved, the fourth gone.
    const expected = [
      ['Standup', before[0].start],
      ['Standup (late)', later.toISOString()],
      ['Standup', before[2].start],
      ['Standup', before[4].start],
    ].sort((a, b) => a[1].localeCompare(b[1]));
    const after = await events(p.key, from, to);
    expect(after.map((e) => [e.title, e.start])).toEqual(expected);
    expect((await fired.scheduled()).map((f) => [f.payload.title, f.payload.start]).slice(1)).toEqual([['Standup (late)', later.toISOString()]]);
    expect((await fired.cancelled()).map((f) => [f.payload.title, f.payload.start])).toEqual([['Standup', fourth.start]]);

    // The next sync reads the same and fires nothing further.
    expect(await syncConnection(db(), connectionId)).toMatchObject({ ok: true, fired: 0 });
    expect((await events(p.key, from, to)).map((e) => [e.title, e.start])).toEqual(expected);
    expect(await fired.scheduled()).toHaveLength(2);
    expect(await fired.cancelled()).toHaveLength(1);
  });

  it('a series changed on the server since it was read: the occurrence’s change fails with calendar_conflict and writes nothing', async () => {
    const p = await person(await newAccount(app()));
    const dav = `occ${++n}${Date.now().toString(36)}`;
    providers.radicale.addUser(dav, 'pw-conflict');
    await providers.radicale.makeCalendar(dav, 'work', { name: 'Work' });
    const res = await call(app(), '/calendar-connections', { key: p.key, body: { provider: 'caldav', url: providers.radicale.url, username: dav, password: 'pw-conflict' } });
    const first = new Date(Math.floor(Date.now() / DAY) * DAY + 3 * DAY + 10 * HOUR);
    const series = (summary: string) =>
      ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//EN', 'BEGIN:VEVENT', 'UID:weekly-1', 'DTSTAMP:20260101T000000Z', `DTSTART:${wall(first, 'UTC')}Z`, `DTEND:${wall(new Date(first.getTime() + HOUR), 'UTC')}Z`, 'RRULE:FREQ=WEEKLY', `SUMMARY:${summary}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    await providers.radicale.put(dav, 'work', 'weekly.ics', series('Weekly'));
    expect((await syncConnection(db(), res.body.connection.id)).ok).toBe(true);
    const [, next] = await events(p.key, first, new Date(first.getTime() + 15 * DAY));

    const { runId } = await stagingRun(p, [{ name: 'cancel_calendar_event', arguments: { eventId: next.id } }], { approvalMode: 'manual' });
    const cart = await cartOfRun(runId);
    await providers.radicale.put(dav, 'work', 'weekly.ics', series('Weekly (renamed elsewhere)'));
    const { contentHash } = await readCart(p, cart.id);
    expect((await approve(p, cart.id, { contentHash })).status).toBe(200);
    expect((await cartReaches(cart.id, ['executed', 'failed'])).status).toBe('failed');
    expect((await dispatchRow(cart.id)).failureReason).toMatch(/^calendar_conflict: /);
    const ics = unfold((await providers.radicale.get(dav, 'work', 'weekly.ics')).body);
    expect(ics).not.toContain('EXDATE');
    expect(ics).toContain('SUMMARY:Weekly (renamed elsewhere)');
  });
});

describe('one occurrence of a Google series', () => {
  it('is moved and another cancelled through the instance, at Google and in the reads at once; the next sync changes nothing', async () => {
    const p = await person(await newAccount(app()));
    const address = `occ${++n}.${Date.now().toString(36)}@gmail.test`;
    providers.gmail.addMailbox(address);
    providers.gcal.addUser(address, { timeZone: 'UTC' });
    providers.gmail.oauth.consentAs = address;
    const fired = await listening(p);
    const first = new Date(Math.floor(Date.now() / DAY) * DAY + 2 * DAY + 14 * HOUR);
    const master = providers.gcal.addEvent(address, address, {
      summary: 'Weekly sync',
      start: { dateTime: first.toISOString(), timeZone: 'UTC' },
      end: { dateTime: new Date(first.getTime() + HOUR).toISOString(), timeZone: 'UTC' },
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const { connection } = await connectCalendars(app(), p.key, 'google');
    expect((await syncConnection(db(), connection.id)).ok).toBe(true);
    const from = new Date(first.getTime() - DAY);
    const to = new Date(first.getTime() + 30 * DAY);
    const before = await events(p.key, from, to);
    expect(before).toHaveLength(4);
    const [, second, third] = before;

    const later = new Date(Date.parse(second.start) + DAY);
    const moved = await released(p, [{ name: 'update_calendar_event', arguments: { eventId: second.id, start: later.toISOString(), end: new Date(later.getTime() + HOUR).toISOString() } }]);
    expect(moved.cart.status, moved.dispatch.failureReason ?? '').toBe('executed');
    const gone = await released(p, [{ name: 'cancel_calendar_event', arguments: { eventId: third.id } }]);
    expect(gone.cart.status, gone.dispatch.failureReason ?? '').toBe('executed');

    // At Google: the instances (by Google's instance ids) changed, the series itself not.
    const compact = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const secondId = `${master.id}_${compact(second.start)}`;
    const thirdId = `${master.id}_${compact(third.start)}`;
    expect(providers.gcal.writes.filter((w) => w.status < 300).map((w) => [w.method, w.eventId])).toEqual([
      ['PATCH', secondId],
      ['DELETE', thirdId],
    ]);
    expect(providers.gcal.event(address, address, secondId)).toMatchObject({ recurringEventId: master.id, start: { dateTime: later.toISOString() } });
    expect(providers.gcal.event(address, address, thirdId)).toMatchObject({ status: 'cancelled', recurringEventId: master.id });
    expect(providers.gcal.event(address, address, master.id)).toMatchObject({ etag: master.etag, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] });

    const expected = [before[0], { ...second, start: later.toISOString() }, before[3]].map((e) => [e.title, e.start]);
    expect((await events(p.key, from, to)).map((e) => [e.title, e.start])).toEqual(expected);
    expect((await fired.scheduled()).map((f) => f.payload.start)).toEqual([later.toISOString()]);
    expect((await fired.cancelled()).map((f) => f.payload.start)).toEqual([third.start]);

    expect(await syncConnection(db(), connection.id)).toMatchObject({ ok: true, fired: 0 });
    expect((await events(p.key, from, to)).map((e) => [e.title, e.start])).toEqual(expected);
  });
});

describe('one occurrence of a Microsoft 365 series', () => {
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

  it('is an event of its own (Graph lists occurrences with their ids): moved and cancelled alone, the next sync changes nothing', async () => {
    const p = await person(await newAccount(app()));
    const address = `occ${++n}.${Date.now().toString(36)}@contoso.test`;
    mail.addMailbox(address);
    graph.addUser(address);
    mail.oauth.consentAs = address;
    const first = new Date(Math.floor(Date.now() / DAY) * DAY + 2 * DAY + 9 * HOUR);
    const { seriesMasterId, occurrences } = graph.addSeries(address, null, { subject: 'Planning', starts: [0, 7, 14].map((d) => new Date(first.getTime() + d * DAY)), minutes: 30 });
    const { connection } = await connectCalendars(app(), p.key, 'microsoft');
    expect((await syncConnection(db(), connection.id)).ok).toBe(true);
    const from = new Date(first.getTime() - DAY);
    const to = new Date(first.getTime() + 20 * DAY);
    const before = await events(p.key, from, to);
    expect(before.map((e) => e.start)).toEqual(occurrences.map((o) => new Date(`${o.start.dateTime.slice(0, 23)}Z`).toISOString()));
    const [, second, third] = before;
    expect(second.id).not.toMatch(/_\d{8}T\d{6}Z$/);

    const later = new Date(Date.parse(second.start) + HOUR);
    const moved = await released(p, [{ name: 'update_calendar_event', arguments: { eventId: second.id, start: later.toISOString(), end: new Date(later.getTime() + 30 * 60_000).toISOString() } }]);
    expect(moved.cart.status, moved.dispatch.failureReason ?? '').toBe('executed');
    const gone = await released(p, [{ name: 'cancel_calendar_event', arguments: { eventId: third.id } }]);
    expect(gone.cart.status, gone.dispatch.failureReason ?? '').toBe('executed');

    // At Graph: the second occurrence is now an exception at its new time, the third removed, the first untouched.
    expect(graph.event(address, occurrences[1].id)).toMatchObject({ type: 'exception', seriesMasterId, deleted: false, start: { dateTime: expect.stringContaining(later.toISOString().slice(0, 19)) } });
    expect(graph.event(address, occurrences[2].id)).toMatchObject({ deleted: true });
    expect(graph.event(address, occurrences[0].id)).toMatchObject({ type: 'occurrence', deleted: false, '@odata.etag': occurrences[0]['@odata.etag'] });

    const expected = [[before[0].title, before[0].start], ['Planning', later.toISOString()]];
    expect((await events(p.key, from, to)).map((e) => [e.title, e.start])).toEqual(expected);
    expect(await syncConnection(db(), connection.id)).toMatchObject({ ok: true, fired: 0 });
    expect((await events(p.key, from, to)).map((e) => [e.title, e.start])).toEqual(expected);
  });
});
