import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { calendarEvents, notices } from '@/db/schema';
import { REMINDER_LEAD_MS, sendDueReminders, TRAVEL_MS } from '@/server/calendars/reminders';
import { syncConnection } from '@/server/calendars/sync';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useRadicale } from './stand-ins';
import { useTestServer } from '../helpers/server';

/**
 * Reminders before events (issue 43; spec 6, Sync and triggers; spec 1, preferences.reminders),
 * against a real CalDAV server (Radicale) synced into Steward: what the user gets as notices when
 * the reminder function runs at a given time. level none: nothing; svc-events (the default): only
 * events the assistant made; all-events: every event, a recurring one once per occurrence (an
 * EXDATE'd one not at all), however often the function runs; a cancelled event nothing; a moved
 * event again at its new time; smartReminders adds travel time for an event at a place; an
 * invitation is reminded of as the attendee preference says, and not once declined.
 */
const app = useTestServer();
const db = () => app().database.db;
const radicale = useRadicale();

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const utc = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
let n = 0;
/** Far enough ahead (and apart per test) that no other test's events share the window a run looks at. */
const slot = () => new Date(Math.ceil(Date.now() / DAY) * DAY + (300 + 7 * ++n) * DAY + 9 * HOUR);
/** A run of the reminder function "minutes" before `at`. */
const runBefore = (at: Date, minutes: number) => sendDueReminders(db(), new Date(at.getTime() - minutes * MIN));

type Ev = { title: string; start: Date; minutes?: number; location?: string; organizer?: string; attendees?: Array<{ email: string; partstat: string }>; rrule?: string; exdate?: Date; status?: string };
function ics(uid: string, e: Ev) {
  return [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//EN', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z',
    `DTSTART:${utc(e.start)}`, `DTEND:${utc(new Date(e.start.getTime() + (e.minutes ?? 60) * MIN))}`, `SUMMARY:${e.title}`,
    ...(e.location ? [`LOCATION:${e.location.replace(/([,;])/g, '\\$1')}`] : []),
    ...(e.organizer ? [`ORGANIZER:mailto:${e.organizer}`] : []),
    ...(e.attendees ?? []).map((a) => `ATTENDEE;PARTSTAT=${a.partstat}:mailto:${a.email}`),
    ...(e.rrule ? [`RRULE:${e.rrule}`] : []),
    ...(e.exdate ? [`EXDATE:${utc(e.exdate)}`] : []),
    ...(e.status ? [`STATUS:${e.status}`] : []),
    'END:VEVENT', 'END:VCALENDAR', '',
  ].join('\r\n');
}

/** A Steward user with reminder preferences, and a Radicale calendar of theirs holding `events`, connected (the first import syncs them). */
async function person(reminders: Record<string, unknown> | null, events: Record<string, Ev>) {
  const account = await newAccount(app());
  const user = await newUser(app(), account);
  const key = await userKey(app(), account, user.id);
  if (reminders) {
    const res = await call(app(), '/profile', { method: 'PATCH', key, body: { preferences: { reminders } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const dav = `remind${n}${Date.now().toString(36)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  radicale().addUser(dav, password);
  await radicale().makeCalendar(dav, 'work', { name: 'Work' });
  for (const [file, e] of Object.entries(events)) await radicale().put(dav, 'work', `${file}.ics`, ics(`${file}-${dav}`, e));
  const connected = await call(app(), '/calendar-connections', { key, body: { provider: 'caldav', url: radicale().url, username: dav, password } });
  expect(connected.status, JSON.stringify(connected.body)).toBe(201);
  const connectionId = connected.body.connection.id as string;
  return {
    ...user,
    dav,
    connectionId,
    /** Adds events on the server and syncs them in. */
    add: async (more: Record<string, Ev>) => {
      for (const [file, e] of Object.entries(more)) await radicale().put(dav, 'work', `${file}.ics`, ics(`${file}-${dav}`, e));
      expect((await syncConnection(db(), connectionId)).ok).toBe(true);
    },
    /** Changes an event on the server (as another client would) and syncs it in. */
    change: async (file: string, e: Ev) => {
      const { etag } = await radicale().get(dav, 'work', `${file}.ics`);
      await radicale().put(dav, 'work', `${file}.ics`, ics(`${file}-${dav}`, e), { ifMatch: etag ?? undefined });
      expect((await syncConnection(db(), connectionId)).ok).toBe(true);
    },
  };
}

const remindersOf = (userId: string) => db().select().from(notices).where(and(eq(notices.userId, userId), eq(notices.kind, 'reminder'))).orderBy(notices.createdAt);

describe('level', () => {
  it('none: no reminder at all', async () => {
    const at = slot();
    const p = await person({ level: 'none' }, { standup: { title: 'Standup', start: at } });
    await runBefore(at, 5);
    await runBefore(at, 1);
    expect(await remindersOf(p.id)).toEqual([]);
  });

  it('svc-events (the default): only the events the assistant made', async () => {
    const at = slot();
    const p = await person(null, { mine: { title: 'Dentist', start: at }, made: { title: 'Lunch with Bob', start: at } });
    // Lunch with Bob was created by the assistant (a calendar dispatch stores it so: server/calendars/dispatch.ts).
    await db().update(calendarEvents).set({ madeByAssistant: true }).where(and(eq(calendarEvents.userId, p.id), eq(calendarEvents.title, 'Lunch with Bob')));
    await runBefore(at, 5);
    const got = await remindersOf(p.id);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ urgent: true, status: expect.any(String) });
    expect(got[0].subject).toContain('Reminder: Lunch with Bob');
    expect(got[0].text).toContain('in 5 minutes');
  });

  it('all-events: nothing before the reminder time, then one per event', async () => {
    const at = slot();
    const p = await person({ level: 'all-events', smartReminders: false }, { a: { title: 'Review', start: at } });
    await runBefore(at, REMINDER_LEAD_MS / MIN + 5);
    expect(await remindersOf(p.id)).toEqual([]);
    await runBefore(at, REMINDER_LEAD_MS / MIN);
    expect((await remindersOf(p.id)).map((r) => r.subject)).toEqual([expect.stringContaining('Reminder: Review')]);
  });
});

describe('exactly once per occurrence', () => {
  it('a daily series: one notice per occurrence however often the function runs, none for the EXDATE’d day', async () => {
    const at = slot();
    const p = await person({ level: 'all-events' }, { daily: { title: 'Daily sync', start: at, minutes: 15, rrule: 'FREQ=DAILY;COUNT=5', exdate: new Date(at.getTime() + DAY) } });
    await runBefore(at, 5);
    await runBefore(at, 5);
    await runBefore(at, 2);
    expect(await remindersOf(p.id)).toHaveLength(1);
    // Day 2 is excluded; day 3 reminds once more.
    await runBefore(new Date(at.getTime() + DAY), 5);
    expect(await remindersOf(p.id)).toHaveLength(1);
    await runBefore(new Date(at.getTime() + 2 * DAY), 5);
    await runBefore(new Date(at.getTime() + 2 * DAY), 3);
    const got = await remindersOf(p.id);
    expect(got).toHaveLength(2);
    expect(new Set(got.map((r) => r.dedupeKey)).size).toBe(2);
  });

  it('a cancelled event gives none; a moved one reminds again at its new time', async () => {
    const at = slot();
    const p = await person({ level: 'all-events' }, {
      gone: { title: 'Cancelled from the start', start: at, status: 'CANCELLED' },
      later: { title: 'Called off', start: new Date(at.getTime() + 3 * HOUR) },
      moved: { title: 'Planning', start: at },
    });
    await runBefore(at, 5);
    expect((await remindersOf(p.id)).map((r) => r.subject)).toEqual([expect.stringContaining('Planning')]);

    // Called off is cancelled on the server before its time: no reminder.
    await p.change('later', { title: 'Called off', start: new Date(at.getTime() + 3 * HOUR), status: 'CANCELLED' });
    await runBefore(new Date(at.getTime() + 3 * HOUR), 5);
    expect(await remindersOf(p.id)).toHaveLength(1);

    // Planning moves two hours later: reminded again before its new time, once.
    const moved = new Date(at.getTime() + 2 * HOUR);
    await p.change('moved', { title: 'Planning', start: moved });
    await runBefore(moved, 5);
    await runBefore(moved, 4);
    const got = await remindersOf(p.id);
    expect(got).toHaveLength(2);
    expect(got[1].subject).toContain('Planning');
  });
});

describe('smart reminders and recipients', () => {
  it('smartReminders: an event at a place is reminded of early enough to get there; without, at the usual lead', async () => {
    const at = slot();
    const lead = (REMINDER_LEAD_MS + TRAVEL_MS) / MIN;
    const smart = await person({ level: 'all-events', smartReminders: true }, { cafe: { title: 'Coffee with Eve', start: at, location: 'Café Central, Vienna' } });
    const plain = await person({ level: 'all-events', smartReminders: false }, { cafe: { title: 'Coffee with Eve', start: at, location: 'Café Central, Vienna' } });
    await runBefore(at, lead);
    const got = await remindersOf(smart.id);
    expect(got).toHaveLength(1);
    expect(got[0].text).toContain('Where: Café Central, Vienna');
    expect(got[0].text).toContain('30 minutes to get there');
    expect(await remindersOf(plain.id)).toEqual([]);
    await runBefore(at, REMINDER_LEAD_MS / MIN);
    expect(await remindersOf(plain.id)).toHaveLength(1);
  });

  it('asAttendee none: invitations are not reminded of; only-me: they are, unless declined; asOrganizer none: the user’s own events are not', async () => {
    const invitation = (p: { email: string }, at: Date, title: string, partstat: string): Ev => ({ title, start: at, organizer: 'eve@elsewhere.example', attendees: [{ email: p.email, partstat }] });

    const at = slot();
    const noInvitations = await person({ level: 'all-events', recipient: { asAttendee: 'none' } }, {});
    await noInvitations.add({ inv: invitation(noInvitations, at, 'Board meeting', 'ACCEPTED'), own: { title: 'My own block', start: at } });
    await runBefore(at, 5);
    expect((await remindersOf(noInvitations.id)).map((r) => r.subject)).toEqual([expect.stringContaining('My own block')]);

    const at2 = slot();
    const notOwn = await person({ level: 'all-events', recipient: { asOrganizer: 'none' } }, {});
    await notOwn.add({
      inv: invitation(notOwn, at2, 'Board meeting', 'ACCEPTED'),
      declined: invitation(notOwn, at2, 'Offsite', 'DECLINED'),
      own: { title: 'My own block', start: at2 },
    });
    await runBefore(at2, 5);
    expect((await remindersOf(notOwn.id)).map((r) => r.subject)).toEqual([expect.stringContaining('Board meeting')]);
  });
});
