import { describe, expect, it } from 'vitest';
import { daysFrom, eventsByDay, eventTimes, freeWithin } from '@/app/calendar/days';

/*
 * The Calendar page's days (app/calendar/days.ts): midnights in the person's zone across a DST
 * change, events placed on the days they touch (an all-day event by its dates, never spilling
 * into the day before west of UTC), and free time inside working hours around busy time.
 */

const prefs = { timezone: 'Europe/Paris', locale: 'en-GB' };
const ev = (o: Partial<Parameters<typeof eventTimes>[0]> & { start: string; end: string }) => ({ id: o.start, calendarId: 'c', title: 'x', allDay: false, location: null, status: 'confirmed', recurring: false, ...o });

describe('calendar page days', () => {
  it('starts each day at the zone’s midnight; the day clocks change is 23 hours long', () => {
    const days = daysFrom(new Date('2026-03-28T12:00:00Z'), 'Europe/Paris', 3);
    expect(days.map((d) => [d.key, d.code, d.start.toISOString()])).toEqual([
      ['2026-03-28', 'SA', '2026-03-27T23:00:00.000Z'],
      ['2026-03-29', 'SU', '2026-03-28T23:00:00.000Z'],
      ['2026-03-30', 'MO', '2026-03-29T22:00:00.000Z'],
    ]);
    expect(days[1].end.getTime() - days[1].start.getTime()).toBe(23 * 3_600_000);
  });

  it('places timed events on every day they touch and all-day events by their dates', () => {
    const days = daysFrom(new Date('2026-06-10T12:00:00Z'), 'America/Los_Angeles', 3);
    const late = ev({ title: 'Late', start: '2026-06-11T05:00:00Z', end: '2026-06-11T08:00:00Z' }); // 22:00–01:00 in LA
    const allDay = ev({ title: 'Holiday', allDay: true, start: '2026-06-11T00:00:00Z', end: '2026-06-12T00:00:00Z' });
    const grouped = eventsByDay(days, [late, allDay]);
    expect(grouped.map((g) => g.events.map((e) => e.title))).toEqual([['Late'], ['Holiday', 'Late'], []]);
    const la = { timezone: 'America/Los_Angeles', locale: 'en-GB' };
    expect(eventTimes(late, days[0], la)).toBe('from 22:00');
    expect(eventTimes(late, days[1], la)).toBe('until 1:00');
    expect(eventTimes(allDay, days[1], la)).toBe('All day');
  });

  it('finds the free time inside working hours around busy time', () => {
    const [day] = daysFrom(new Date('2026-06-10T12:00:00Z'), 'Europe/Paris', 1);
    const busy = [
      { start: '2026-06-10T08:00:00Z', end: '2026-06-10T09:00:00Z' }, // 10:00–11:00 Paris
      { start: '2026-06-10T14:30:00Z', end: '2026-06-10T16:00:00Z' }, // 16:30–18:00 Paris, past the day's end
    ];
    const free = freeWithin(day, [{ start: '09:00', end: '17:00' }], busy, prefs.timezone);
    expect(free.map((f) => [f.start.toISOString(), f.end.toISOString()])).toEqual([
      ['2026-06-10T07:00:00.000Z', '2026-06-10T08:00:00.000Z'],
      ['2026-06-10T09:00:00.000Z', '2026-06-10T14:30:00.000Z'],
    ]);
  });
});
