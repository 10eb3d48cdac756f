import { prefsDateFormat, type Prefs } from '@/app/_lib/time';
import { fromWall, toWall } from '@/server/calendars/zones';

/*
 * Days as the person lives them: midnights in their own time zone (a day across a DST change is
 * 23 or 25 hours), the agenda's events placed on each day they touch, and times written in their
 * zone and locale. Pure, so the page renders the same text wherever it runs.
 */

const DAY_MS = 86_400_000;
const CODES = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'] as const;

export type Day = { key: string; start: Date; end: Date; code: (typeof CODES)[number] };

/** The midnight that starts the person's day `offset` days after the one `at` falls in. */
function midnight(at: Date, tz: string, offset = 0): Date {
  const wall = toWall(at, tz).getTime();
  return fromWall(Math.floor(wall / DAY_MS) * DAY_MS + offset * DAY_MS, tz);
}

/** `count` days from the person's today (today first). */
export function daysFrom(now: Date, tz: string, count: number): Day[] {
  return Array.from({ length: count }, (_, i) => {
    const start = midnight(now, tz, i);
    const wall = toWall(start, tz);
    return { key: wall.toISOString().slice(0, 10), start, end: midnight(now, tz, i + 1), code: CODES[wall.getUTCDay()] };
  });
}

export type AgendaEvent = { id: string; calendarId: string; title: string; start: string; end: string; allDay: boolean; location: string | null; status: string; recurring: boolean };

/**
 * The events each day shows: a timed event on every day it overlaps, an all-day one on the dates
 * it covers (an all-day event runs between UTC midnights of its dates: compared by date, not by
 * instant, so it never spills into the day before in a zone west of UTC). Sorted: all-day first.
 */
export function eventsByDay<E extends AgendaEvent>(days: Day[], events: E[]): Array<{ day: Day; events: E[] }> {
  return days.map((day) => ({
    day,
    events: events
      .filter((e) => {
        if (e.allDay) return e.start.slice(0, 10) <= day.key && day.key < e.end.slice(0, 10);
        const s = Date.parse(e.start);
        const t = Date.parse(e.end);
        return s < day.end.getTime() && (t > day.start.getTime() || (t === s && s >= day.start.getTime()));
      })
      .sort((a, b) => Number(b.allDay) - Number(a.allDay) || Date.parse(a.start) - Date.parse(b.start) || a.title.localeCompare(b.title)),
  }));
}

const clock = (d: Date | string, prefs: Prefs) => prefsDateFormat(prefs, { hour: 'numeric', minute: '2-digit' }).format(typeof d === 'string' ? new Date(d) : d);

/** "Today", "Tomorrow", then "Wednesday 9 December" in the person's locale. */
export function dayLabel(day: Day, index: number, prefs: Prefs): string {
  const date = prefsDateFormat(prefs, { weekday: 'long', day: 'numeric', month: 'long' }).format(day.start);
  if (index === 0) return `Today, ${date}`;
  if (index === 1) return `Tomorrow, ${date}`;
  return date;
}

/** When an event runs on a day: "All day", "09:00 – 10:00", "until 10:00" (began the day before), "from 22:00" (goes on after midnight). */
export function eventTimes(e: AgendaEvent, day: Day, prefs: Prefs): string {
  if (e.allDay) return 'All day';
  const began = Date.parse(e.start) < day.start.getTime();
  const goesOn = Date.parse(e.end) > day.end.getTime();
  if (began && goesOn) return 'All day';
  if (began) return `until ${clock(e.end, prefs)}`;
  if (goesOn) return `from ${clock(e.start, prefs)}`;
  return `${clock(e.start, prefs)} – ${clock(e.end, prefs)}`;
}

export const formatRange = (r: { start: Date | string; end: Date | string }, prefs: Prefs) => `${clock(r.start, prefs)} – ${clock(r.end, prefs)}`;

type Span = { start: number; end: number };

/**
 * Free time within the day's working hours ("09:00"–"17:00" wall times in the person's zone),
 * the merged busy intervals taken out.
 */
export function freeWithin(day: Day, hours: Array<{ start: string; end: string }>, busy: Array<{ start: string; end: string }>, tz: string): Array<{ start: Date; end: Date }> {
  const wallMidnight = toWall(day.start, tz).getTime();
  const at = (hhmm: string) => {
    const [h, m] = hhmm.split(':').map(Number);
    return fromWall(wallMidnight + (h * 60 + m) * 60_000, tz).getTime();
  };
  const blocked: Span[] = busy.map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end) })).sort((a, b) => a.start - b.start);
  const free: Span[] = [];
  for (const h of hours) {
    let cursor = at(h.start);
    const stop = h.end === '24:00' ? day.end.getTime() : at(h.end);
    for (const b of blocked) {
      if (b.end <= cursor || b.start >= stop) continue;
      if (b.start > cursor) free.push({ start: cursor, end: b.start });
      cursor = Math.max(cursor, b.end);
    }
    if (cursor < stop) free.push({ start: cursor, end: stop });
  }
  return free.map((f) => ({ start: new Date(f.start), end: new Date(f.end) }));
}

/** "1 h 30 min", "45 min". */
export function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h && m ? `${h} h ${m} min` : h ? `${h} h` : `${m} min`;
}
