import * as rrulePkg from 'rrule';
import type { GoogleEvent } from './google-calendar-fake';

/*
 * The Google Calendar stand-in's instances of recurring events, as Google names and answers them:
 * an instance's id is `<eventId>_<original start>` (`YYYYMMDDTHHMMSSZ` for a timed series,
 * `YYYYMMDD` for an all-day one), events.instances with `originalStart` answers that one instance
 * (an exception stored for it, or the occurrence as the series makes it), and a PATCH or DELETE of
 * an instance id that has no exception yet makes one (the series itself is not changed). The rule
 * is evaluated in UTC with its EXDATEs (the tests' series are kept in UTC).
 */

const rrule: typeof rrulePkg = (rrulePkg as unknown as { default?: typeof rrulePkg }).default ?? rrulePkg;

const compact = (ms: number, allDay: boolean) => (allDay ? new Date(ms).toISOString().slice(0, 10).replace(/-/g, '') : new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, ''));

const startOf = (e: GoogleEvent) => Date.parse(e.start.dateTime ?? `${e.start.date}T00:00:00Z`);
const endOf = (e: GoogleEvent) => Date.parse(e.end.dateTime ?? `${e.end.date}T00:00:00Z`);

/** Whether the series has an occurrence starting at `at` (its rule and RDATEs, less its EXDATEs). */
function occursAt(master: GoogleEvent, at: number): boolean {
  const lines = (master.recurrence ?? []).filter((l) => /^(RRULE|EXDATE|RDATE)/i.test(l)).map((l) => l.replace(/;TZID=[^:;]+/i, ''));
  const dtstart = `DTSTART:${new Date(startOf(master)).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`;
  const set = rrule.rrulestr([dtstart, ...lines].join('\n'), { forceset: true });
  return at === startOf(master) || set.between(new Date(at - 1), new Date(at + 1), true).some((d) => d.getTime() === at);
}

/** The instance id of a series' occurrence, and back. */
export const instanceIdOf = (master: GoogleEvent, at: number) => `${master.id}_${compact(at, !master.start.dateTime)}`;
export function parseInstanceId(id: string): { eventId: string; at: number } | null {
  const m = /^(.+)_(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?$/.exec(id);
  return m ? { eventId: m[1], at: Date.UTC(+m[2], +m[3] - 1, +m[4], +(m[5] ?? 0), +(m[6] ?? 0), +(m[7] ?? 0)) } : null;
}

/** The occurrence at `at` as the series makes it (not stored), or null when the series has none there. */
export function generatedInstance(master: GoogleEvent, at: number): GoogleEvent | null {
  if (!master.recurrence?.length || master.status === 'cancelled' || !occursAt(master, at)) return null;
  const allDay = !master.start.dateTime;
  const length = endOf(master) - startOf(master);
  const when = (ms: number) => (allDay ? { date: new Date(ms).toISOString().slice(0, 10) } : { dateTime: new Date(ms).toISOString(), timeZone: master.start.timeZone ?? 'UTC' });
  const { recurrence: _r, ...rest } = master;
  return { ...rest, id: instanceIdOf(master, at), recurringEventId: master.id, originalStartTime: when(at), start: when(at), end: when(at + length) } as GoogleEvent;
}

/** `originalStart` of events.instances (RFC 3339 or a date) as an instant. */
export function originalStartOf(value: string): number | null {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}
