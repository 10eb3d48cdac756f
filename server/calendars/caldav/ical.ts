import ICAL from 'ical.js';
import type { AttendeeResponse, EventDraft, RemoteEvent } from '../provider';
import { fromWall, isIanaZone, toWall } from '../zones';

/*
 * iCalendar (RFC 5545) as CalDAV servers keep it, read and written with ical.js: one calendar
 * object resource holds a series' master and its overridden instances (RECURRENCE-ID), which
 * Steward keeps as separate events (server/calendars/provider.ts). Times become instants here: a
 * TZID that names an IANA zone is converted by the runtime's zone data (DST-correct); another
 * TZID by the VTIMEZONE the object carries; a floating time in the calendar's own zone; an all-day
 * date as the UTC midnight of that date (end exclusive), as every provider's are kept.
 */

type Time = InstanceType<typeof ICAL.Time>;
type Property = InstanceType<typeof ICAL.Property>;
type Component = InstanceType<typeof ICAL.Component>;

const PARTSTAT: Record<string, AttendeeResponse> = { ACCEPTED: 'accepted', DECLINED: 'declined', TENTATIVE: 'tentative' };

/** Some clients write a TZID with a path before the zone's name (`/mozilla.org/20050126_1/Europe/Berlin`). */
function ianaName(tzid: string | undefined): string | null {
  if (!tzid) return null;
  if (isIanaZone(tzid)) return tzid;
  const m = /([A-Za-z_]+\/[A-Za-z_+-]+(?:\/[A-Za-z_+-]+)?)$/.exec(tzid);
  return m && isIanaZone(m[1]) ? m[1] : null;
}

type Read = { at: Date; allDay: boolean; zone: string | null };

/** A DTSTART/DTEND/RECURRENCE-ID value as an instant, with the IANA zone it is written in (null: UTC or unknown). */
function readTime(root: Component, prop: Property, fallbackZone: string | null): Read {
  const t = prop.getFirstValue() as Time;
  const wall = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  if (t.isDate) return { at: new Date(Date.UTC(t.year, t.month - 1, t.day)), allDay: true, zone: null };
  const tzid = prop.getParameter('tzid') as string | undefined;
  if (!tzid && t.zone?.tzid === 'UTC') return { at: new Date(wall), allDay: false, zone: null };
  if (tzid) {
    const iana = ianaName(tzid);
    if (iana) return { at: fromWall(wall, iana), allDay: false, zone: iana };
    const vtz = root.getAllSubcomponents('vtimezone').find((c) => c.getFirstPropertyValue('tzid') === tzid);
    if (vtz) {
      const zoned = ICAL.Time.fromData({ year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second, isDate: false }, new ICAL.Timezone({ component: vtz, tzid }));
      return { at: new Date(zoned.toUnixTime() * 1000), allDay: false, zone: null };
    }
  }
  // Floating (or an unknown zone): the calendar's own zone.
  return { at: fromWall(wall, fallbackZone), allDay: false, zone: fallbackZone };
}

const mailto = (v: unknown) => String(v ?? '').replace(/^mailto:/i, '').trim().toLowerCase() || null;
const text = (c: Component, name: string) => {
  const v = c.getFirstPropertyValue(name);
  return v == null || v === '' ? null : String(v);
};

/** A time as iCalendar writes it (`20260330`, `20260330T090000`, `20260330T090000Z`) as an ical.js time (UTC when it ends in Z). */
function icalTime(value: string): Time {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(value);
  if (!m) throw new Error(`not an iCalendar time: ${value}`);
  const data = { year: +m[1], month: +m[2], day: +m[3], hour: +(m[4] ?? 0), minute: +(m[5] ?? 0), second: +(m[6] ?? 0), isDate: m[4] === undefined };
  return m[7] ? ICAL.Time.fromData(data, ICAL.Timezone.utcTimezone) : ICAL.Time.fromData(data);
}

/** The RECURRENCE-ID as the id suffix of an override: its value as written (stable across reads). */
const ridKey = (c: Component) => (c.getFirstProperty('recurrence-id')!.getFirstValue() as Time).toICALString();

function toRemote(root: Component, v: Component, o: { href: string; etag: string | null; url: string; zone: string | null }): RemoteEvent | null {
  const startProp = v.getFirstProperty('dtstart');
  if (!startProp) return null;
  const start = readTime(root, startProp, o.zone);
  const endProp = v.getFirstProperty('dtend');
  let end: Date;
  if (endProp) end = readTime(root, endProp, o.zone).at;
  else {
    const duration = v.getFirstPropertyValue('duration') as InstanceType<typeof ICAL.Duration> | null;
    end = duration ? new Date(start.at.getTime() + duration.toSeconds() * 1000) : new Date(start.at.getTime() + (start.allDay ? 86_400_000 : 0));
  }
  if (end < start.at) end = start.at;
  const ridProp = v.getFirstProperty('recurrence-id');
  const status = String(v.getFirstPropertyValue('status') ?? '').toUpperCase();
  const recurrence = ridProp ? [] : ['rrule', 'rdate', 'exdate'].flatMap((n) => v.getAllProperties(n).map((p) => p.toICALString()));
  return {
    providerEventId: ridProp ? `${o.href}#${ridKey(v)}` : o.href,
    uid: text(v, 'uid'),
    etag: o.etag,
    status: status === 'CANCELLED' ? 'cancelled' : status === 'TENTATIVE' ? 'tentative' : 'confirmed',
    title: text(v, 'summary') ?? '',
    description: text(v, 'description'),
    location: text(v, 'location'),
    start: start.at,
    end,
    allDay: start.allDay,
    timezone: start.zone,
    attendees: v.getAllProperties('attendee').flatMap((p) => {
      const email = mailto(p.getFirstValue());
      if (!email) return [];
      const cn = p.getParameter('cn');
      return [{ email, name: cn ? String(cn) : null, response: PARTSTAT[String(p.getParameter('partstat') ?? '').toUpperCase()] ?? 'needs-action' }];
    }),
    organizer: mailto(v.getFirstPropertyValue('organizer')),
    recurrence: recurrence.length ? recurrence : null,
    recurrenceOf: ridProp ? o.href : null,
    originalStart: ridProp ? readTime(root, ridProp, o.zone).at : null,
    url: o.url,
  };
}

/**
 * The events of one calendar object resource: its single event, or its series' master and
 * overrides. `href` is the resource's path (the event's id); an unreadable object gives none.
 */
export function parseCalendarObject(data: string, o: { href: string; etag: string | null; url: string; zone: string | null }): RemoteEvent[] {
  let root: Component;
  try {
    root = new ICAL.Component(ICAL.parse(data));
  } catch {
    return [];
  }
  const vevents = root.getAllSubcomponents('vevent');
  const masters = vevents.filter((v) => !v.hasProperty('recurrence-id'));
  // One master at most (a second one without RECURRENCE-ID is not valid iCalendar): the first is kept.
  const kept = [...masters.slice(0, 1), ...vevents.filter((v) => v.hasProperty('recurrence-id'))];
  return kept.flatMap((v) => toRemote(root, v, o) ?? []);
}

// --- Writing ---------------------------------------------------------------------------------

const utcTime = (at: Date) => ICAL.Time.fromJSDate(at, true);
const dateOnly = (at: Date) => ICAL.Time.fromData({ year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate(), isDate: true });

/** Sets DTSTART/DTEND: a date for an all-day event; in `zone`'s wall clock with its TZID when it is an IANA zone (a series keeps its DST behaviour); else UTC. */
function setTimes(v: Component, start: Date, end: Date, allDay: boolean, zone: string | null) {
  v.removeAllProperties('dtstart');
  v.removeAllProperties('dtend');
  v.removeAllProperties('duration');
  for (const [name, at] of [
    ['dtstart', start],
    ['dtend', end],
  ] as const) {
    if (allDay) {
      v.addPropertyWithValue(name, dateOnly(at));
    } else if (zone && isIanaZone(zone) && zone !== 'UTC') {
      const w = toWall(at, zone);
      const t = ICAL.Time.fromData({ year: w.getUTCFullYear(), month: w.getUTCMonth() + 1, day: w.getUTCDate(), hour: w.getUTCHours(), minute: w.getUTCMinutes(), second: w.getUTCSeconds(), isDate: false });
      const p = v.addPropertyWithValue(name, t);
      p.setParameter('tzid', zone);
    } else {
      v.addPropertyWithValue(name, utcTime(at));
    }
  }
}

function setText(v: Component, name: string, value: string | null | undefined) {
  if (value === undefined) return;
  v.removeAllProperties(name);
  if (value) v.addPropertyWithValue(name, value);
}

function setAttendees(v: Component, attendees: EventDraft['attendees']) {
  if (attendees === undefined) return;
  const before = new Map(v.getAllProperties('attendee').map((p) => [mailto(p.getFirstValue()), p]));
  v.removeAllProperties('attendee');
  for (const a of attendees) {
    const email = a.email.trim().toLowerCase();
    const kept = before.get(email);
    if (kept) {
      v.addProperty(kept);
      continue;
    }
    const p = v.addPropertyWithValue('attendee', `mailto:${email}`);
    if (a.name) p.setParameter('cn', a.name);
    p.setParameter('partstat', 'NEEDS-ACTION');
    p.setParameter('rsvp', 'TRUE');
    p.setParameter('role', 'REQ-PARTICIPANT');
  }
}

function stamp(v: Component) {
  v.updatePropertyWithValue('dtstamp', utcTime(new Date()));
  v.updatePropertyWithValue('last-modified', utcTime(new Date()));
}

/** A new calendar object for a draft: one VEVENT with the given UID (the retry after a crash finds it by it). */
export function draftToIcs(draft: EventDraft & { uid: string }, organizer: string | null): string {
  const root = new ICAL.Component(['vcalendar', [], []]);
  root.updatePropertyWithValue('prodid', '-//Steward//Calendar//EN');
  root.updatePropertyWithValue('version', '2.0');
  const v = new ICAL.Component('vevent');
  v.updatePropertyWithValue('uid', draft.uid);
  stamp(v);
  v.updatePropertyWithValue('sequence', 0);
  setTimes(v, draft.start, draft.end, draft.allDay ?? false, draft.timezone ?? null);
  setText(v, 'summary', draft.title);
  setText(v, 'description', draft.description ?? null);
  setText(v, 'location', draft.location ?? null);
  if (draft.attendees?.length) {
    if (organizer) v.updatePropertyWithValue('organizer', `mailto:${organizer}`);
    setAttendees(v, draft.attendees);
  }
  root.addSubcomponent(v);
  return root.toString();
}

/** The target of a write inside a resource: its master, or the instance named by `rid` (a RECURRENCE-ID value). */
export type Target = { rid: string | null };

/**
 * The resource with `changes` applied to the master or to one instance. Changing an instance that
 * has no override yet makes one from the master (RFC 5545: a RECURRENCE-ID component). Null when
 * the instance is not in the resource.
 */
export function applyChanges(data: string, target: Target, changes: Partial<EventDraft>): string | null {
  const root = new ICAL.Component(ICAL.parse(data));
  const vevents = root.getAllSubcomponents('vevent');
  const master = vevents.find((v) => !v.hasProperty('recurrence-id')) ?? null;
  let v = target.rid ? (vevents.find((x) => x.hasProperty('recurrence-id') && ridKey(x) === target.rid) ?? null) : master;
  if (!v && target.rid && master) {
    v = new ICAL.Component(ICAL.parse(master.toString()) as never);
    for (const n of ['rrule', 'rdate', 'exdate']) v.removeAllProperties(n);
    const rid = icalTime(target.rid);
    const p = v.addPropertyWithValue('recurrence-id', rid);
    const tzid = master.getFirstProperty('dtstart')!.getParameter('tzid');
    if (tzid && !target.rid.endsWith('Z') && !rid.isDate) p.setParameter('tzid', tzid as string);
    // The instance's own times before the change: the master's shifted to this occurrence.
    const masterStart = readTime(root, master.getFirstProperty('dtstart')!, null);
    const masterEnd = master.getFirstProperty('dtend') ? readTime(root, master.getFirstProperty('dtend')!, null).at : masterStart.at;
    const at = readTime(root, p, null).at;
    setTimes(v, at, new Date(at.getTime() + masterEnd.getTime() - masterStart.at.getTime()), masterStart.allDay, masterStart.zone);
    root.addSubcomponent(v);
  }
  if (!v) return null;
  if (changes.start || changes.end) {
    const startProp = v.getFirstProperty('dtstart')!;
    const cur = readTime(root, startProp, null);
    const curEnd = v.getFirstProperty('dtend') ? readTime(root, v.getFirstProperty('dtend')!, null).at : cur.at;
    const start = changes.start ?? cur.at;
    const end = changes.end ?? new Date(start.getTime() + curEnd.getTime() - cur.at.getTime());
    setTimes(v, start, end, changes.allDay ?? cur.allDay, changes.timezone ?? cur.zone);
  }
  setText(v, 'summary', changes.title);
  setText(v, 'description', changes.description);
  setText(v, 'location', changes.location);
  setAttendees(v, changes.attendees);
  v.updatePropertyWithValue('sequence', Number(v.getFirstPropertyValue('sequence') ?? 0) + 1);
  stamp(v);
  return root.toString();
}

/**
 * The resource without one instance: an EXDATE on the master (in the master's own form of time),
 * and the instance's override removed. Null when there is no master to exclude it from.
 */
export function excludeInstance(data: string, rid: string): string | null {
  const root = new ICAL.Component(ICAL.parse(data));
  const vevents = root.getAllSubcomponents('vevent');
  const master = vevents.find((v) => !v.hasProperty('recurrence-id'));
  if (!master) return null;
  for (const v of vevents) if (v.hasProperty('recurrence-id') && ridKey(v) === rid) root.removeSubcomponent(v);
  const p = master.addPropertyWithValue('exdate', icalTime(rid));
  const tzid = master.getFirstProperty('dtstart')!.getParameter('tzid');
  if (tzid && !rid.endsWith('Z') && rid.includes('T')) p.setParameter('tzid', tzid as string);
  master.updatePropertyWithValue('sequence', Number(master.getFirstPropertyValue('sequence') ?? 0) + 1);
  stamp(master);
  return root.toString();
}

/**
 * The RECURRENCE-ID value (as `ridKey` reads one) naming the occurrence of the resource's series
 * that starts at `originalStart`, in the form of the master's DTSTART (RFC 5545 3.8.4.4: the same
 * value type and zone): a date for an all-day series, the wall clock in the master's zone (its
 * TZID then goes on the property), UTC with a Z otherwise. Null without a master.
 */
export function ridFor(data: string, originalStart: Date, fallbackZone: string | null): string | null {
  let root: Component;
  try {
    root = new ICAL.Component(ICAL.parse(data));
  } catch {
    return null;
  }
  const master = root.getAllSubcomponents('vevent').find((v) => !v.hasProperty('recurrence-id'));
  const prop = master?.getFirstProperty('dtstart');
  if (!prop) return null;
  const t = prop.getFirstValue() as Time;
  if (t.isDate) return dateOnly(originalStart).toICALString();
  const tzid = prop.getParameter('tzid') as string | undefined;
  const wall = (zone: string | null) => {
    const w = toWall(originalStart, zone);
    return ICAL.Time.fromData({ year: w.getUTCFullYear(), month: w.getUTCMonth() + 1, day: w.getUTCDate(), hour: w.getUTCHours(), minute: w.getUTCMinutes(), second: w.getUTCSeconds(), isDate: false }).toICALString();
  };
  if (!tzid && t.zone?.tzid === 'UTC') return utcTime(originalStart).toICALString();
  if (tzid) {
    const iana = ianaName(tzid);
    if (iana) return wall(iana);
    const vtz = root.getAllSubcomponents('vtimezone').find((c) => c.getFirstPropertyValue('tzid') === tzid);
    if (vtz) {
      const zoned = utcTime(originalStart).convertToZone(new ICAL.Timezone({ component: vtz, tzid }));
      return ICAL.Time.fromData({ year: zoned.year, month: zoned.month, day: zoned.day, hour: zoned.hour, minute: zoned.minute, second: zoned.second, isDate: false }).toICALString();
    }
  }
  // Floating: the wall clock of the calendar's zone, as it was read.
  return wall(fallbackZone);
}
