import { describe, expect, it } from 'vitest';
import type { CalendarEventRow } from '@/db/schema';
import { expandEvents, rangeEndOf } from '@/server/calendars/expand';
import { fromWall, toWall } from '@/server/calendars/zones';

/**
 * Recurrence expansion and wall-clock times, without a server: series read far from where they
 * began (the shortcut that starts a rule near the range must give the occurrences walking from
 * DTSTART gives), INTERVAL, DST gaps and repeated hours, all-day series, finite series' ends.
 */
let n = 0;
function row(o: Partial<CalendarEventRow>): CalendarEventRow {
  const id = `row${++n}`;
  return {
    id,
    calendarId: 'cal',
    userId: 'u',
    providerEventId: `/${id}.ics`,
    uid: id,
    etag: null,
    status: 'confirmed',
    title: 'Event',
    description: null,
    location: null,
    start: new Date('2026-01-05T09:00:00Z'),
    end: new Date('2026-01-05T10:00:00Z'),
    allDay: false,
    timezone: null,
    attendees: [],
    organizer: null,
    recurrence: null,
    recurrenceOf: null,
    originalStart: null,
    url: null,
    rangeEnd: null,
    madeByAssistant: false,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...o,
  };
}
const starts = (rows: CalendarEventRow[], from: string, to: string) => expandEvents(rows, new Date(from), new Date(to)).map((e) => e.start.toISOString());

describe('expanding series', () => {
  it('a weekly series every other week, read three years after it began, keeps its phase and its zone’s wall clock', () => {
    // Mondays 09:00 New York, every second week from Monday 5 January 2026.
    const series = row({ start: new Date('2026-01-05T14:00:00Z'), end: new Date('2026-01-05T15:00:00Z'), timezone: 'America/New_York', recurrence: ['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO'] });
    // 2029-03-05 is 165 weeks after 2026-01-05 (odd: none), 2029-03-12 is 166 (even); New York is on EDT from 11 March 2029.
    expect(starts([series], '2029-03-01T00:00:00Z', '2029-04-01T00:00:00Z')).toEqual(['2029-03-12T13:00:00.000Z', '2029-03-26T13:00:00.000Z']);
    // The same as walking from the start: every occurrence of a span that covers the whole way.
    const walked = starts([series], '2026-01-01T00:00:00Z', '2026-03-01T00:00:00Z');
    expect(walked).toEqual(['2026-01-05T14:00:00.000Z', '2026-01-19T14:00:00.000Z', '2026-02-02T14:00:00.000Z', '2026-02-16T14:00:00.000Z']);
  });

  it('a daily series at 02:30 Berlin moves forward by the gap on the spring morning that has no 02:30', () => {
    const series = row({ start: new Date('2026-03-27T01:30:00Z'), end: new Date('2026-03-27T02:00:00Z'), timezone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] });
    expect(starts([series], '2026-03-26T00:00:00Z', '2026-04-02T00:00:00Z')).toEqual([
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
      // 29 March: 02:30 does not exist; 03:30 CEST is 01:30Z.
      '2026-03-29T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
    expect(rangeEndOf(series)?.toISOString()).toBe('2026-03-30T01:00:00.000Z');
  });

  it('an ambiguous autumn time takes its first occurrence', () => {
    // 25 October 2026, 02:30 in Berlin happens twice (CEST, then CET): the first is 00:30Z.
    expect(fromWall(Date.UTC(2026, 9, 25, 2, 30), 'Europe/Berlin').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(toWall(new Date('2026-10-25T01:30:00Z'), 'Europe/Berlin').toISOString()).toBe('2026-10-25T02:30:00.000Z');
  });

  it('an all-day yearly series with an EXDATE; a cancelled override hides its occurrence; an override moved into the range shows', () => {
    const birthday = row({ start: new Date('2020-05-04T00:00:00Z'), end: new Date('2020-05-05T00:00:00Z'), allDay: true, recurrence: ['RRULE:FREQ=YEARLY', 'EXDATE;VALUE=DATE:20270504'] });
    expect(starts([birthday], '2026-01-01T00:00:00Z', '2028-12-31T00:00:00Z')).toEqual(['2026-05-04T00:00:00.000Z', '2028-05-04T00:00:00.000Z']);

    const weekly = row({ recurrence: ['RRULE:FREQ=WEEKLY'] });
    const cancelled = row({ recurrenceOf: weekly.providerEventId, status: 'cancelled', originalStart: new Date('2026-01-12T09:00:00Z'), start: new Date('2026-01-12T09:00:00Z'), end: new Date('2026-01-12T10:00:00Z') });
    const moved = row({ recurrenceOf: weekly.providerEventId, title: 'Moved in', originalStart: new Date('2026-02-02T09:00:00Z'), start: new Date('2026-01-20T09:00:00Z'), end: new Date('2026-01-20T10:00:00Z') });
    const got = expandEvents([weekly, cancelled, moved], new Date('2026-01-10T00:00:00Z'), new Date('2026-01-25T00:00:00Z'));
    expect(got.map((e) => [e.start.toISOString(), e.title, e.recurring])).toEqual([
      ['2026-01-19T09:00:00.000Z', 'Event', true],
      ['2026-01-20T09:00:00.000Z', 'Moved in', true],
    ]);
    // Its own occurrence is gone from where it was.
    expect(starts([weekly, cancelled, moved], '2026-02-01T00:00:00Z', '2026-02-03T00:00:00Z')).toEqual([]);
  });

  it('an instance whose series is not stored (Graph sends occurrences alone) is an event of its own', () => {
    const lone = row({ recurrenceOf: 'graph-master', originalStart: new Date('2026-01-05T09:00:00Z') });
    expect(expandEvents([lone], new Date('2026-01-01T00:00:00Z'), new Date('2026-01-10T00:00:00Z')).map((e) => [e.id, e.recurring])).toEqual([[lone.id, true]]);
  });
});
