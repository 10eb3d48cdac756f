import * as rrulePkg from 'rrule';
import type { CalendarEventRow } from '@/db/schema';
import { fromWall, isIanaZone, toWall } from './zones';

/** What expansion reads of a stored event. */
export type ExpandableRow = Pick<
  CalendarEventRow,
  | 'id'
  | 'calendarId'
  | 'providerEventId'
  | 'status'
  | 'title'
  | 'description'
  | 'location'
  | 'start'
  | 'end'
  | 'allDay'
  | 'timezone'
  | 'attendees'
  | 'organizer'
  | 'recurrence'
  | 'recurrenceOf'
  | 'originalStart'
  | 'updatedAt'
>;

/*
 * Recurring events expanded for a range, at read time, for every provider alike: a series'
 * master keeps its RRULE/RDATE/EXDATE lines (as iCalendar writes them) and its overridden or
 * cancelled instances are rows of their own (recurrenceOf + originalStart). The rule is evaluated
 * by the rrule library in the series' wall clock (so 09:00 stays 09:00 across a DST change) and
 * each occurrence turned into an instant in the series' zone (server/calendars/zones.ts).
 */

// rrule ships a UMD build as `main` (Node: its exports under `default`) and ES modules as `module` (bundlers: named exports).
const RRule: typeof rrulePkg.RRule = rrulePkg.RRule ?? (rrulePkg as unknown as { default: typeof rrulePkg }).default.RRule;
type RRuleT = InstanceType<typeof RRule>;

/** At most this many occurrences are generated per series and range (a FREQ=MINUTELY rule cannot run away). */
const MAX_PER_SERIES = 5_000;
const DAY = 86_400_000;
/** Wall clocks differ from UTC by at most 14 hours: a window this much wider holds every candidate. */
const SLACK = 15 * 3_600_000;

type Line = { name: string; params: Record<string, string>; values: string[] };

function parseLine(line: string): Line | null {
  const m = /^([A-Za-z-]+)((?:;[^:;]+=(?:"[^"]*"|[^:;]*))*):(.*)$/.exec(line.trim());
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const p of m[2].split(';').filter(Boolean)) {
    const i = p.indexOf('=');
    params[p.slice(0, i).toUpperCase()] = p.slice(i + 1).replace(/^"|"$/g, '');
  }
  return { name: m[1].toUpperCase(), params, values: m[3].split(',').map((v) => v.trim()).filter(Boolean) };
}

const wallOf = (v: string): { wall: number; utc: boolean; date: boolean } | null => {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(v.split('/')[0]);
  if (!m) return null;
  return { wall: Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0)), utc: m[7] === 'Z', date: m[4] === undefined };
};

const zoneOf = (tzid: string | undefined, fallback: string | null) => {
  if (!tzid) return fallback;
  if (isIanaZone(tzid)) return tzid;
  const m = /([A-Za-z_]+\/[A-Za-z_+-]+(?:\/[A-Za-z_+-]+)?)$/.exec(tzid);
  return m && isIanaZone(m[1]) ? m[1] : fallback;
};

/** A rule as parsed, with its wall-clock DTSTART; the RRule object is made per range (see `ruleFor`). */
type Rule = {
  options: Partial<InstanceType<typeof RRule>['origOptions']>;
  dtstart: Date;
  whole: RRuleT;
  /** Occurrence starts (instants, ms) by the wall-clock year they fall in, made once per version of the row. */
  years: Map<number, number[]>;
};

type Series = {
  rules: Rule[];
  rdates: number[];
  exdates: Set<number>;
  /** EXDATEs given as dates for a timed series: every occurrence on that wall date is excluded. */
  exdays: Set<number>;
  zone: string | null;
  durationMs: number;
  start: number;
};

const parsed = new Map<string, Series>();

/** A stored series' lines read once per version of the row (a read of a month expands hundreds of series). */
function seriesOf(row: ExpandableRow): Series {
  const key = `${row.id}|${row.updatedAt.getTime()}`;
  let s = parsed.get(key);
  if (!s) {
    s = series(row);
    if (parsed.size > 20_000) parsed.clear();
    parsed.set(key, s);
  }
  return s;
}

const PERIOD: Partial<Record<number, number>> = { [RRule.DAILY]: DAY, [RRule.WEEKLY]: 7 * DAY, [RRule.HOURLY]: 3_600_000, [RRule.MINUTELY]: 60_000 };

/**
 * The rule for generating from `lo` on. rrule walks from DTSTART every time; a rule without
 * COUNT whose periods are days or weeks (or hours, minutes) starts instead at the last whole
 * number of its periods before `lo`: the same occurrences (the wall clock has no DST, so periods
 * are exact), without walking years of them.
 */
function ruleFor(r: Rule, lo: number): RRuleT {
  const period = PERIOD[r.options.freq as number];
  if (!period || r.options.count) return r.whole;
  const step = period * (r.options.interval || 1);
  const skip = Math.floor((lo - r.dtstart.getTime()) / step);
  if (skip <= 1) return r.whole;
  return new RRule({ ...r.options, dtstart: new Date(r.dtstart.getTime() + (skip - 1) * step), tzid: null });
}

/** Rules of days or longer are generated a wall-clock year at a time and kept (rrule takes ~0.2 ms a call); faster ones per range. */
const BY_YEAR = new Set<number>([RRule.YEARLY, RRule.MONTHLY, RRule.WEEKLY, RRule.DAILY]);
const MAX_YEARS_KEPT = 40;

function ruleStarts(rule: Rule, zone: string | null, lo: number, hi: number): number[] {
  const limit = (_d: Date, i: number) => i < MAX_PER_SERIES;
  if (!BY_YEAR.has(rule.options.freq as number)) return ruleFor(rule, lo).between(new Date(lo), new Date(hi), true, limit).map((w) => fromWall(w, zone).getTime());
  const out: number[] = [];
  for (let y = new Date(lo).getUTCFullYear(); y <= new Date(hi).getUTCFullYear(); y++) {
    let list = rule.years.get(y);
    if (!list) {
      const a = Date.UTC(y, 0, 1);
      const b = Date.UTC(y + 1, 0, 1) - 1;
      list = rule.dtstart.getTime() > b ? [] : ruleFor(rule, a).between(new Date(a), new Date(b), true, limit).map((w) => fromWall(w, zone).getTime());
      if (rule.years.size >= MAX_YEARS_KEPT) rule.years.clear();
      rule.years.set(y, list);
    }
    for (const at of list) out.push(at);
  }
  return out;
}

/** A master's lines read once: the rules in wall-clock form, the extra and excluded dates as instants. */
function series(row: Pick<CalendarEventRow, 'recurrence' | 'start' | 'end' | 'allDay' | 'timezone'>): Series {
  const zone = row.allDay ? null : isIanaZone(row.timezone) ? row.timezone : null;
  const dtstart = toWall(row.start, zone);
  const s: Series = { rules: [], rdates: [], exdates: new Set(), exdays: new Set(), zone, durationMs: row.end.getTime() - row.start.getTime(), start: row.start.getTime() };
  for (const raw of row.recurrence ?? []) {
    const line = parseLine(raw);
    if (!line) continue;
    if (line.name === 'RRULE') {
      const value = raw.slice(raw.indexOf(':') + 1);
      let options;
      try {
        options = RRule.parseString(value);
      } catch {
        continue;
      }
      const until = /UNTIL=([0-9TZ]+)/i.exec(value)?.[1];
      if (options.until && until) {
        const u = wallOf(until);
        // An UNTIL in UTC is an instant: compared in the series' wall clock. A date UNTIL of a timed series takes in its whole day.
        if (u?.utc) options.until = toWall(u.wall, zone);
        else if (u?.date && !row.allDay) options.until = new Date(u.wall + DAY - 1000);
      }
      s.rules.push({ options, dtstart, whole: new RRule({ ...options, dtstart, tzid: null }), years: new Map() });
      continue;
    }
    if (line.name !== 'EXDATE' && line.name !== 'RDATE') continue;
    const lineZone = zoneOf(line.params.TZID, zone);
    for (const v of line.values) {
      const w = wallOf(v);
      if (!w) continue;
      if (w.date && !row.allDay && line.name === 'EXDATE') {
        s.exdays.add(w.wall);
        continue;
      }
      const at = w.utc || w.date ? w.wall : fromWall(w.wall, lineZone).getTime();
      if (line.name === 'EXDATE') s.exdates.add(at);
      else s.rdates.push(at);
    }
  }
  return s;
}

/** The starts (instants, ms) of a series' occurrences that can overlap [from, to), before exclusions. */
function starts(s: Series, from: number, to: number): number[] {
  const out = new Set<number>();
  const lo = new Date(from - s.durationMs - SLACK);
  const hi = new Date(to + SLACK);
  for (const rule of s.rules) for (const at of ruleStarts(rule, s.zone, lo.getTime(), hi.getTime())) out.add(at);
  // DTSTART is always the first occurrence, whether or not the rule would produce it (RFC 5545).
  out.add(s.start);
  for (const r of s.rdates) out.add(r);
  return [...out].filter((t) => t < to && t + s.durationMs > from).sort((a, b) => a - b);
}

/**
 * The last instant a stored event can cover: its end, or a finite series' last occurrence's end;
 * null for a series without end (COUNT/UNTIL absent). Lets a window query skip rows that cannot matter.
 */
export function rangeEndOf(row: Pick<CalendarEventRow, 'recurrence' | 'start' | 'end' | 'allDay' | 'timezone' | 'recurrenceOf'>): Date | null {
  if (!row.recurrence?.length || row.recurrenceOf) return row.end;
  const s = series(row);
  if (!s.rules.length) return new Date(Math.max(row.end.getTime(), ...s.rdates.map((r) => r + s.durationMs)));
  let last = row.end.getTime();
  for (const { whole } of s.rules) {
    const o = whole.origOptions;
    if (!o.count && !o.until) return null;
    const all = whole.all((_d, i) => i < 100_000);
    if (all.length) last = Math.max(last, fromWall(all[all.length - 1], s.zone).getTime() + s.durationMs);
  }
  for (const r of s.rdates) last = Math.max(last, r + s.durationMs);
  return new Date(last);
}

export type Occurrence = {
  /** The event's id: the stored row's, or for a generated occurrence `<series row id>_<its original start, UTC>`. */
  id: string;
  rowId: string;
  calendarId: string;
  title: string;
  start: Date;
  end: Date;
  allDay: boolean;
  timezone: string | null;
  location: string | null;
  description: string | null;
  attendees: Array<{ email: string; name: string | null; response: string }>;
  organizer: string | null;
  status: 'confirmed' | 'tentative' | 'cancelled';
  recurring: boolean;
  /** For an occurrence of a series: the start it has in the series (what an override names). */
  originalStart: Date | null;
};

const compact = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** The id of a generated occurrence, and the series row and original start it names. */
export const occurrenceId = (rowId: string, originalStart: number) => `${rowId}_${compact(originalStart)}`;

const fromRow = (row: ExpandableRow, recurring: boolean, over: Partial<Occurrence> = {}): Occurrence => ({
  id: row.id,
  rowId: row.id,
  calendarId: row.calendarId,
  title: row.title,
  start: row.start,
  end: row.end,
  allDay: row.allDay,
  timezone: row.timezone,
  location: row.location,
  description: row.description,
  attendees: row.attendees,
  organizer: row.organizer,
  status: row.status,
  recurring,
  originalStart: row.originalStart,
  ...over,
});

/**
 * The occurrences of stored events that overlap [from, to), by start: single events as they are,
 * series expanded with their EXDATEs and RDATEs, overridden instances in place of the occurrence
 * they replace (wherever they were moved to), cancelled ones left out.
 */
export function expandEvents(rows: ExpandableRow[], from: Date, to: Date): Occurrence[] {
  const f = from.getTime();
  const t = to.getTime();
  const overlaps = (s: number, e: number) => s < t && (e > f || (e === s && s >= f));
  const key = (calendarId: string, providerEventId: string) => `${calendarId}\u0000${providerEventId}`;
  const masters = new Set(rows.filter((r) => r.recurrence?.length && !r.recurrenceOf).map((r) => key(r.calendarId, r.providerEventId)));
  const overrides = new Map<string, ExpandableRow[]>();
  const out: Occurrence[] = [];
  for (const r of rows) {
    if (!r.recurrenceOf) continue;
    const k = key(r.calendarId, r.recurrenceOf);
    if (masters.has(k)) overrides.set(k, [...(overrides.get(k) ?? []), r]);
    // An instance whose series is not kept (Graph sends occurrences alone; an invitation to one instance): an event of its own.
    else if (r.status !== 'cancelled' && overlaps(r.start.getTime(), r.end.getTime())) out.push(fromRow(r, true));
  }
  for (const r of rows) {
    if (r.recurrenceOf) continue;
    if (!r.recurrence?.length) {
      if (r.status !== 'cancelled' && overlaps(r.start.getTime(), r.end.getTime())) out.push(fromRow(r, false));
      continue;
    }
    if (r.status === 'cancelled') continue;
    const own = overrides.get(key(r.calendarId, r.providerEventId)) ?? [];
    const replaced = new Set(own.map((o) => o.originalStart?.getTime()).filter((x): x is number => x !== undefined));
    const s = seriesOf(r);
    for (const at of starts(s, f, t)) {
      if (replaced.has(at) || s.exdates.has(at)) continue;
      if (s.exdays.size && s.exdays.has(Date.UTC(...dateParts(toWall(at, s.zone))))) continue;
      out.push(fromRow(r, true, { id: occurrenceId(r.id, at), start: new Date(at), end: new Date(at + s.durationMs), originalStart: new Date(at) }));
    }
    for (const o of own) {
      if (o.status === 'cancelled' || !overlaps(o.start.getTime(), o.end.getTime())) continue;
      if (o.originalStart && s.exdates.has(o.originalStart.getTime())) continue;
      out.push(fromRow(o, true));
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime() || a.end.getTime() - b.end.getTime());
}

const dateParts = (d: Date): [number, number, number] => [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
