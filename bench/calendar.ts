/**
 * The calendar section of `npm run bench` (issue 43), under `calendar` in bench/results.json:
 *
 * - `syncMs`: the first sync of a CalDAV connection whose calendar holds 5,000 events (4,600
 *   single events over a year, 400 recurring series: weekly without end, daily and monthly with a
 *   COUNT, some with EXDATEs and moved instances, in Europe/Berlin), from a real Radicale
 *   (tests/helpers/radicale.ts) over HTTP into PostgreSQL: syncConnection, as the engine runs it
 *   (discovery, the calendar list, one sync-collection REPORT, the writes). Target ≤ 10 s.
 * - `incrementalSyncMs`: the next sync after one event was changed on the server (its time
 *   moved), p50 of 20. Target ≤ 200 ms. `incrementalProviderMs` is the part spent in the CalDAV
 *   calls (Radicale hashes every object of the calendar for the sync token of each REPORT:
 *   about half a second at 5,000 here), `incrementalStewardMs` the rest (Steward's own work).
 *   The provider's part is split into `incrementalListMs` (discovery and the calendar list) and
 *   `incrementalReportMs` (the sync-collection REPORT, parsed); `incrementalServerReportMs` is the
 *   same REPORT sent bare from the token then held (an empty answer, nothing parsed): Radicale's
 *   own time, which is most of it.
 * - `eventsMs`: listEvents (GET /calendar/events' service) for a 30-day window at a random
 *   place in the year, recurring series expanded, p50 of 200 after warm-up. Target ≤ 50 ms.
 * - `freeBusyMs`: freeBusy (GET /calendar/free-busy's service) for a 7-day window (a scheduling
 *   look-ahead), p50 of 200. Target ≤ 30 ms.
 *
 * In this process against a throwaway PostgreSQL and a Radicale of its own (the measures are of
 * the services, not of HTTP to Steward). Radicale is seeded by writing its storage folder (5,000
 * PUTs take minutes on it) and read once unmeasured, so its item cache is built as a serving
 * server's is (its first read of 5,000 objects parses each: about a minute); what Steward reads of
 * it goes over CalDAV as always.
 */
import { eq } from 'drizzle-orm';
import { connect, type Db } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { calendarConnections, calendars } from '../db/schema';
import type { UserActor } from '../server/access/actor';
import { createAccount } from '../server/accounts/service';
import { caldavProvider } from '../server/calendars/caldav/provider';
import { CALDAV_SECRET } from '../server/calendars/connection-provider';
import type { CalendarProvider } from '../server/calendars/provider';
import { freeBusy, listEvents } from '../server/calendars/read';
import { syncConnection } from '../server/calendars/sync';
import { sealJson } from '../server/secrets/sealed';
import { createUserWithEmail } from '../server/user-record/create';
import { startRadicale, type Radicale } from '../tests/helpers/radicale';
import { spread } from './processes';

const EVENTS = 5_000;
const SERIES = 400;
const PROBES = 200;
const WARMUP = 20;
const DAY = 86_400_000;

/** A deterministic generator, so every run measures the same calendar. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const utc = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
const wall = (ms: number) => utc(ms).replace('Z', '');
const wrap = (vevents: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Steward bench//EN', ...vevents, 'END:VCALENDAR', ''].join('\r\n');
const vevent = (lines: string[]) => ['BEGIN:VEVENT', 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT'].join('\r\n');

/** The calendar: its objects, and the time around which it is spread (a year, half of it past). */
export function world(now: number) {
  const rnd = random(43);
  const items: Array<{ file: string; ics: string }> = [];
  const hour = (ms: number) => Math.floor(ms / 3_600_000) * 3_600_000;
  for (let i = 0; i < EVENTS - SERIES; i++) {
    const start = hour(now - 182 * DAY + rnd() * 365 * DAY);
    const length = [30, 60, 60, 90][Math.floor(rnd() * 4)] * 60_000;
    const attendees = Array.from({ length: Math.floor(rnd() * 4) }, (_, k) => `ATTENDEE;CN=Guest ${k};PARTSTAT=ACCEPTED:mailto:guest${k}.${i}@example.com`);
    items.push({ file: `single-${i}.ics`, ics: wrap([vevent([`UID:single-${i}`, `DTSTART:${utc(start)}`, `DTEND:${utc(start + length)}`, `SUMMARY:Meeting ${i}`, 'LOCATION:Room 1', ...attendees])]) });
  }
  for (let i = 0; i < SERIES; i++) {
    // Local wall times (Europe/Berlin) at 08:00–17:00, starting somewhere in the past half year.
    const day = Math.floor((now - rnd() * 182 * DAY) / DAY) * DAY;
    const start = day + (8 + Math.floor(rnd() * 10)) * 3_600_000;
    const kind = i % 10 < 7 ? 'weekly' : i % 10 < 9 ? 'daily' : 'monthly';
    const rule = kind === 'weekly' ? 'RRULE:FREQ=WEEKLY' : kind === 'daily' ? `RRULE:FREQ=DAILY;COUNT=${30 + Math.floor(rnd() * 90)}` : 'RRULE:FREQ=MONTHLY;COUNT=12';
    const step = kind === 'weekly' ? 7 * DAY : kind === 'daily' ? DAY : 30 * DAY;
    const master = [`UID:series-${i}`, `DTSTART;TZID=Europe/Berlin:${wall(start)}`, `DTEND;TZID=Europe/Berlin:${wall(start + 1_800_000)}`, rule, `SUMMARY:Series ${i}`];
    const overrides: string[] = [];
    if (i % 4 === 0) master.push(`EXDATE;TZID=Europe/Berlin:${wall(start + 2 * step)}`);
    if (i % 5 === 0) {
      const original = start + 3 * step;
      overrides.push(vevent([`UID:series-${i}`, `RECURRENCE-ID;TZID=Europe/Berlin:${wall(original)}`, `DTSTART;TZID=Europe/Berlin:${wall(original + 2 * 3_600_000)}`, `DTEND;TZID=Europe/Berlin:${wall(original + 2 * 3_600_000 + 1_800_000)}`, `SUMMARY:Series ${i} (moved)`]));
    }
    items.push({ file: `series-${i}.ics`, ics: wrap([vevent(master), ...overrides]) });
  }
  return items;
}

async function userWithConnection(db: Db, accountId: string, n: number, radicale: Radicale, password: string) {
  const user = await db.transaction((tx) => createUserWithEmail(tx, { accountId, email: `calendar${n}@bench.test`, firstName: 'Robin', lastName: 'Vale', organizationId: null }));
  const [connection] = await db
    .insert(calendarConnections)
    .values({ accountId, userId: user.id, provider: 'caldav', url: `${radicale.url}/`, username: 'bench', secret: await sealJson(db, { password }, CALDAV_SECRET) })
    .returning();
  const actor: UserActor = {
    accountId,
    credential: { kind: 'api_key', keyId: 'bench' },
    level: 'user',
    organizationId: null,
    user,
    actingVia: 'user_key',
    scopes: [],
    account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null },
  };
  return { actor, connectionId: connection.id };
}

const round = (n: number) => Number(n.toFixed(1));

export async function bench() {
  const pgServer = await startThrowawayDatabase('calendar_bench');
  const database = connect(pgServer.url);
  const db = database.db;
  const radicale = await startRadicale();
  const saved = process.env.STEWARD_PROVIDER_ALLOWED_RANGES;
  Object.assign(process.env, radicale.env);
  try {
    const password = 'bench-app-password';
    radicale.addUser('bench', password);
    await radicale.makeCalendar('bench', 'work', { name: 'Work' });
    const now = Date.now();
    const items = world(now);
    radicale.seedFiles('bench', 'work', items);
    // Radicale parses every object on its first read after a change on disk and caches it (about a
    // minute for 5,000 here); a server that serves a calendar has that cache. Warmed unmeasured.
    const warm = await fetch(`${radicale.url}/bench/work/`, {
      method: 'REPORT',
      headers: { Authorization: `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`, Depth: '1', 'Content-Type': 'application/xml' },
      body: '<?xml version="1.0"?><d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/><c:calendar-data/></d:prop></d:sync-collection>',
    });
    if (warm.status !== 207) throw new Error(`warming Radicale: ${warm.status}`);
    await warm.arrayBuffer();
    const { accountId } = await createAccount(db, 'Calendar bench');

    // The initial sync, three times (each a fresh connection of its own user).
    const syncTimes: number[] = [];
    let main: Awaited<ReturnType<typeof userWithConnection>> | null = null;
    for (let i = 0; i < 3; i++) {
      const c = await userWithConnection(db, accountId, i, radicale, password);
      const t = performance.now();
      const outcome = await syncConnection(db, c.connectionId);
      syncTimes.push(performance.now() - t);
      if (!outcome.ok) throw new Error(`the initial sync failed: ${outcome.error}`);
      if (outcome.changed < EVENTS) throw new Error(`the initial sync wrote ${outcome.changed} events of ${EVENTS}`);
      main ??= c;
    }
    const { actor, connectionId } = main!;

    // One event moved on the server, then the next sync: p50 of 20. The time spent in the
    // provider's calls (the CalDAV requests, the server's work, reading the answers) is kept apart:
    // Radicale computes a sync token over every object of the calendar on each REPORT.
    const incremental: number[] = [];
    const inProvider: number[] = [];
    const inServer: number[] = [];
    const plain = caldavProvider({ url: `${radicale.url}/`, username: 'bench', password });
    let spent = 0;
    const inList: number[] = [];
    const inReport: number[] = [];
    const timedCall = async <T>(call: () => Promise<T>, into: number[]) => {
      const t = performance.now();
      try {
        return await call();
      } finally {
        const took = performance.now() - t;
        spent += took;
        into.push(took);
      }
    };
    const timed: CalendarProvider = { ...plain, listCalendars: () => timedCall(() => plain.listCalendars(), inList), sync: (c) => timedCall(() => plain.sync(c), inReport) };
    for (let i = 0; i < 20; i++) {
      const start = Math.floor((now + (i + 1) * DAY) / 3_600_000) * 3_600_000;
      const put = await radicale.put('bench', 'work', 'single-0.ics', wrap([vevent(['UID:single-0', `DTSTART:${utc(start)}`, `DTEND:${utc(start + 3_600_000)}`, 'SUMMARY:Meeting 0 (moved)'])]));
      if (put.status >= 300) throw new Error(`PUT of the changed event: ${put.status}`);
      spent = 0;
      const t = performance.now();
      const outcome = await syncConnection(db, connectionId, { provider: timed });
      incremental.push(performance.now() - t);
      inProvider.push(spent);
      if (!outcome.ok || outcome.changed !== 1) throw new Error(`the incremental sync wrote ${outcome.changed} (${outcome.error ?? 'ok'})`);
      // Radicale's own part of the REPORT: the same sync-collection from the token now held (no
      // change since: an empty answer), timed to its last byte with no parsing of ours.
      const [cal] = await db.select({ cursor: calendars.syncCursor }).from(calendars).where(eq(calendars.connectionId, connectionId));
      const body = `<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>${(cal?.cursor ?? '').replace(/^sync:/, '')}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/><c:calendar-data/></d:prop></d:sync-collection>`;
      const s0 = performance.now();
      const raw = await fetch(`${radicale.url}/bench/work/`, { method: 'REPORT', headers: { Authorization: `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`, Depth: '1', 'Content-Type': 'application/xml; charset=utf-8' }, body });
      await raw.text();
      inServer.push(performance.now() - s0);
    }

    // Reads: random windows in the year the events span.
    const rnd = random(7);
    const windowAt = (days: number) => {
      const from = new Date(Math.floor((now - 170 * DAY + rnd() * 330 * DAY) / DAY) * DAY);
      return { from, to: new Date(from.getTime() + days * DAY) };
    };
    const eventsTimes: number[] = [];
    let occurrences = 0;
    for (let i = 0; i < WARMUP + PROBES; i++) {
      const w = windowAt(30);
      const t = performance.now();
      const list = await listEvents(db, actor, w);
      if (i >= WARMUP) {
        eventsTimes.push(performance.now() - t);
        occurrences += list.length;
      }
    }
    const busyTimes: number[] = [];
    for (let i = 0; i < WARMUP + PROBES; i++) {
      const w = windowAt(7);
      const t = performance.now();
      await freeBusy(db, actor, w);
      if (i >= WARMUP) busyTimes.push(performance.now() - t);
    }
    const [row] = await db.select().from(calendarConnections).where(eq(calendarConnections.id, connectionId));
    const syncSpread = spread(syncTimes);
    return {
      events: EVENTS,
      series: SERIES,
      syncMs: round(syncSpread.p50),
      syncRunsMs: syncTimes.map(round),
      incrementalSyncMs: spread(incremental).p50,
      incrementalSync: spread(incremental),
      incrementalProviderMs: spread(inProvider),
      incrementalStewardMs: spread(incremental.map((t, i) => t - inProvider[i])),
      // Of the provider's part: listing the calendars (discovery and a PROPFIND of the home) and the sync-collection REPORT.
      incrementalListMs: spread(inList.slice(-20)),
      incrementalReportMs: spread(inReport.slice(-20)),
      // The same REPORT sent bare (Radicale's time alone, an empty answer): the rest of the REPORT's part is ours (tsdav's XML, ical.js).
      incrementalServerReportMs: spread(inServer),
      eventsMs: spread(eventsTimes).p50,
      events30Days: spread(eventsTimes),
      occurrencesPer30Days: Math.round(occurrences / PROBES),
      freeBusyMs: spread(busyTimes).p50,
      freeBusy7Days: spread(busyTimes),
      targets: { syncMs: 10_000, incrementalSyncMs: 200, eventsMs: 50, freeBusyMs: 30 },
      lastSyncError: row.lastSyncError,
    };
  } finally {
    if (saved === undefined) delete process.env.STEWARD_PROVIDER_ALLOWED_RANGES;
    else process.env.STEWARD_PROVIDER_ALLOWED_RANGES = saved;
    await radicale.close();
    await database.close();
    await pgServer.stop();
  }
}

// Run on its own: `npx tsx bench/calendar.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  bench().then(
    (r) => {
      console.log(JSON.stringify(r, null, 2));
      process.exit(0);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
