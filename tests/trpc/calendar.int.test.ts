import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { setHostedDomain } from '@/server/hosted/accounts';
import { hostedCaller, procedureOutcome } from '../helpers/hosted-caller';
import { useRadicale } from '../calendars/stand-ins';
import { useTestServer } from '../helpers/server';

/*
 * The hosted Calendar page's procedures (server/trpc/routers/calendar.ts) against a real CalDAV
 * server (Radicale): connecting answers each refusal under its field; the overview, events and
 * free/busy are what the REST API answers the same person; choosing calendars is
 * preferences.calendars.read as GET /calendars reports it; another person reaches none of it.
 */
const app = useTestServer();
const radicale = useRadicale();

const HOUR = 3_600_000;
const utc = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const ics = (uid: string, start: Date, title: string) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//EN', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', `DTSTART:${utc(start)}`, `DTEND:${utc(new Date(start.getTime() + HOUR))}`, `SUMMARY:${title}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

let n = 0;
async function person() {
  const account = await newAccount(app(), 'Calendar page');
  const host = `calendar-page-${Date.now().toString(36)}-${++n}.steward.test`;
  await setHostedDomain(app().database.db, account.accountId, host);
  const user = await newUser(app(), account);
  const other = await newUser(app(), account);
  const dav = `cal${n}${Date.now().toString(36)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  radicale().addUser(dav, password);
  await radicale().makeCalendar(dav, 'work', { name: 'Work' });
  await radicale().makeCalendar(dav, 'home', { name: 'Home' });
  return {
    user,
    key: await userKey(app(), account, user.id),
    api: await hostedCaller(app(), host, user.id),
    otherApi: await hostedCaller(app(), host, other.id),
    dav,
    password,
  };
}

describe('calendar procedures', () => {
  it('a refused CalDAV connection names its field; nothing is stored', async () => {
    const p = await person();
    const empty = await p.api.calendar.connectCaldav({ url: '', username: '', password: '' });
    expect(empty.ok).toBe(false);
    expect(!empty.ok && empty.problems.map((x) => [x.field, x.problem]).sort()).toEqual([
      ['password', 'Enter an app password'],
      ['url', 'Enter the server’s URL'],
      ['username', 'Enter your username'],
    ]);

    const metadata = await p.api.calendar.connectCaldav({ url: 'http://169.254.169.254/', username: p.dav, password: p.password });
    expect(metadata).toMatchObject({ ok: false, code: 'outbound_url_refused', problems: [{ field: 'url', problem: expect.stringMatching(/^Points inside the deployment's network/) }] });

    const wrong = await p.api.calendar.connectCaldav({ url: radicale().url, username: p.dav, password: 'not-it' });
    expect(wrong).toMatchObject({ ok: false, code: 'calendar_unreachable', problems: [{ field: 'password', problem: expect.stringContaining('401') }] });

    expect((await call(app(), '/calendar-connections', { key: p.key })).body.connections).toEqual([]);
  });

  it('connects, shows what the REST API shows, chooses calendars, and keeps it all from another person', async () => {
    const p = await person();
    const start = new Date(Math.ceil(Date.now() / HOUR) * HOUR + 2 * HOUR);
    await radicale().put(p.dav, 'work', 'review.ics', ics('review', start, 'Design review'));
    await radicale().put(p.dav, 'home', 'dentist.ics', ics('dentist', new Date(start.getTime() + 3 * HOUR), 'Dentist'));

    const made = await p.api.calendar.connectCaldav({ url: ` ${radicale().url} `, username: p.dav, password: p.password });
    expect(made.ok, JSON.stringify(made)).toBe(true);
    expect(JSON.stringify(made)).not.toContain(p.password);

    const overview = await p.api.calendar.overview();
    const rest = await call(app(), '/calendar-connections', { key: p.key });
    expect(overview.connections).toEqual(rest.body.connections);
    expect(overview.calendars).toEqual((await call(app(), '/calendars', { key: p.key })).body.calendars);
    expect(overview.calendars.map((c) => [c.name, c.selected]).sort()).toEqual([
      ['Home', true],
      ['Work', true],
    ]);

    const window = { from: new Date(start.getTime() - HOUR).toISOString(), to: new Date(start.getTime() + 24 * HOUR).toISOString() };
    const events = await p.api.calendar.events(window);
    expect(events.events.map((e) => e.title).sort()).toEqual(['Dentist', 'Design review']);
    expect(events.events).toEqual((await call(app(), `/calendar/events?${new URLSearchParams(window)}`, { key: p.key })).body.events);
    const today = await p.api.calendar.availability(window);
    expect(today.busy).toEqual((await call(app(), `/calendar/free-busy?${new URLSearchParams(window)}`, { key: p.key })).body.busy);
    expect(today.busy).toHaveLength(2);

    // Only Work is read: the API's selection, the agenda and free/busy follow.
    const work = overview.calendars.find((c) => c.name === 'Work')!;
    const home = overview.calendars.find((c) => c.name === 'Home')!;
    await p.api.calendar.choose({ calendarIds: [work.id] });
    const selected = (await call(app(), '/calendars', { key: p.key })).body.calendars.map((c: { name: string; selected: boolean }) => [c.name, c.selected]).sort();
    expect(selected).toEqual([
      ['Home', false],
      ['Work', true],
    ]);
    expect((await p.api.calendar.events(window)).events.map((e) => e.title)).toEqual(['Design review']);
    expect((await p.api.calendar.availability(window)).busy).toHaveLength(1);
    // Choosing every calendar stores the empty list (calendars added later are read too); none cannot be chosen.
    await p.api.calendar.choose({ calendarIds: [work.id, home.id] });
    expect((await call(app(), '/profile', { key: p.key })).body.user.preferences.calendars.read).toEqual([]);
    expect(await procedureOutcome(p.api.calendar.choose({ calendarIds: [] }))).toBe('BAD_REQUEST:400');

    // Another person of the account sees nothing, cannot choose these calendars nor disconnect them.
    expect(await p.otherApi.calendar.overview()).toMatchObject({ connections: [], calendars: [] });
    expect((await p.otherApi.calendar.events(window)).events).toEqual([]);
    expect(await procedureOutcome(p.otherApi.calendar.choose({ calendarIds: [work.id] }))).toBe('BAD_REQUEST:400');
    expect(await procedureOutcome(p.otherApi.calendar.disconnect({ connectionId: overview.connections[0].id }))).toBe('NOT_FOUND:404');
    expect((await call(app(), '/calendar-connections', { key: p.key })).body.connections).toHaveLength(1);

    await p.api.calendar.disconnect({ connectionId: overview.connections[0].id });
    expect(await p.api.calendar.overview()).toMatchObject({ connections: [], calendars: [] });
  });
});
