import { and, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { alias, type AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '@/db/client';
import { calendarConnections, calendarEvents, calendars, users } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { invalidFields, notFound } from '@/server/http/errors';
import { expandEvents, type ExpandableRow, type Occurrence } from './expand';
import { isSelected, selectedIds } from './selection';

/*
 * Reading the local copy (spec 6, Calendars API): the user's calendars with whether each is read,
 * the events of a range with series expanded, and busy time merged over the calendars read. All
 * of it is the acting user's own: another user's calendar is not found.
 */

/** At most 62 days per read (spec 6). */
export const MAX_RANGE_MS = 62 * 86_400_000;

export async function listUserCalendars(db: Db, actor: UserActor) {
  const [user] = await db.select({ preferences: users.preferences }).from(users).where(eq(users.id, actor.user.id));
  const selected = selectedIds(user?.preferences);
  const rows = await db
    .select({ c: calendars, provider: calendarConnections.provider })
    .from(calendars)
    .innerJoin(calendarConnections, eq(calendarConnections.id, calendars.connectionId))
    .where(and(eq(calendars.userId, actor.user.id), eq(calendarConnections.userId, actor.user.id)))
    .orderBy(calendars.createdAt);
  return rows.map(({ c, provider }) => ({
    id: c.id,
    connectionId: c.connectionId,
    provider,
    name: c.name,
    color: c.color,
    readOnly: c.readOnly,
    primary: c.primary,
    selected: isSelected(selected, c.id),
  }));
}

export function checkRange(from: Date, to: Date) {
  if (to.getTime() <= from.getTime()) throw invalidFields([{ field: 'to', problem: 'must be after from' }]);
  if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw invalidFields([{ field: 'to', problem: 'must be at most 62 days after from' }]);
}

/** The ids of the calendars read: the selected ones of the user's live connections (or only `calendarId`, which must be theirs). */
async function calendarsRead(db: Db, actor: UserActor, calendarId?: string): Promise<string[]> {
  const all = await listUserCalendars(db, actor);
  if (calendarId) {
    if (!all.some((c) => c.id === calendarId)) throw notFound('Calendar');
    return [calendarId];
  }
  return all.filter((c) => c.selected).map((c) => c.id);
}

/** A timestamp as epoch milliseconds (a float8 pg hands over as a number: parsing thousands of timestamps is a visible part of a read). */
const epoch = (c: AnyPgColumn) => sql<number | null>`(extract(epoch from ${c}) * 1000)::float8`;
const at = (ms: number | null) => (ms === null ? null : new Date(ms));

/**
 * The stored rows that can produce an occurrence in [from, to), in one statement: rows of the
 * range, and every override of a series in it (one moved out of the range still hides the
 * occurrence it replaces).
 */
async function rowsFor(db: Db, userId: string, ids: string[], from: Date, to: Date): Promise<ExpandableRow[]> {
  if (!ids.length) return [];
  const e = calendarEvents;
  const m = alias(calendarEvents, 'm');
  const inRange = (t: typeof e) => and(lt(t.start, to), or(isNull(t.rangeEnd), gt(t.rangeEnd, from)));
  // Uncorrelated (evaluated once): an override of another calendar's series of the same id is read but not attached (expandEvents pairs by calendar).
  const seriesInRange = db
    .select({ id: m.providerEventId })
    .from(m)
    .where(and(eq(m.userId, userId), inArray(m.calendarId, ids), isNotNull(m.recurrence), isNull(m.recurrenceOf), inRange(m as unknown as typeof e)));
  const rows = await db
    .select({
      id: e.id,
      calendarId: e.calendarId,
      providerEventId: e.providerEventId,
      status: e.status,
      title: e.title,
      description: e.description,
      location: e.location,
      start: epoch(e.start),
      end: epoch(e.end),
      allDay: e.allDay,
      timezone: e.timezone,
      attendees: e.attendees,
      organizer: e.organizer,
      recurrence: e.recurrence,
      recurrenceOf: e.recurrenceOf,
      originalStart: epoch(e.originalStart),
      updatedAt: epoch(e.updatedAt),
    })
    .from(e)
    .where(and(eq(e.userId, userId), inArray(e.calendarId, ids), or(inRange(e), inArray(e.recurrenceOf, seriesInRange))));
  return rows.map((r) => ({ ...r, start: at(r.start)!, end: at(r.end)!, originalStart: at(r.originalStart), updatedAt: at(r.updatedAt)! }));
}

export const presentOccurrence = (o: Occurrence) => ({
  id: o.id,
  calendarId: o.calendarId,
  title: o.title,
  start: o.start.toISOString(),
  end: o.end.toISOString(),
  allDay: o.allDay,
  timezone: o.timezone,
  location: o.location,
  description: o.description,
  attendees: o.attendees,
  organizer: o.organizer,
  status: o.status,
  recurring: o.recurring,
});

/** The events of [from, to) in the calendars read (or one of them), recurring ones expanded to their occurrences. */
export async function listEvents(db: Db, actor: UserActor, q: { from: Date; to: Date; calendarId?: string }): Promise<Occurrence[]> {
  checkRange(q.from, q.to);
  const ids = await calendarsRead(db, actor, q.calendarId);
  return expandEvents(await rowsFor(db, actor.user.id, ids, q.from, q.to), q.from, q.to);
}

/**
 * Busy time in [from, to) over the calendars read, merged: every event but cancelled ones,
 * all-day ones (most calendars mark them free by default: a birthday does not block a day) and
 * those the user declined.
 */
export async function freeBusy(db: Db, actor: UserActor, q: { from: Date; to: Date }): Promise<Array<{ start: Date; end: Date }>> {
  checkRange(q.from, q.to);
  const ids = await calendarsRead(db, actor);
  const own = new Set([actor.user.email.toLowerCase()]);
  const connections = await db.select({ username: calendarConnections.username }).from(calendarConnections).where(eq(calendarConnections.userId, actor.user.id));
  for (const c of connections) if (c.username?.includes('@')) own.add(c.username.toLowerCase());
  const busy = expandEvents(await rowsFor(db, actor.user.id, ids, q.from, q.to), q.from, q.to)
    .filter((o) => !o.allDay && o.status !== 'cancelled' && !o.attendees.some((a) => own.has(a.email) && a.response === 'declined'))
    .map((o) => ({ start: Math.max(o.start.getTime(), q.from.getTime()), end: Math.min(o.end.getTime(), q.to.getTime()) }))
    .filter((b) => b.end > b.start)
    .sort((a, b) => a.start - b.start);
  const merged: Array<{ start: number; end: number }> = [];
  for (const b of busy) {
    const last = merged.at(-1);
    if (last && b.start <= last.end) last.end = Math.max(last.end, b.end);
    else merged.push({ ...b });
  }
  return merged.map((b) => ({ start: new Date(b.start), end: new Date(b.end) }));
}
