import { and, asc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { calendarConnections, calendarEvents, calendars, users, type CalendarConnectionRow, type CalendarEventRow, type CalendarRow } from '@/db/schema';
import { learnFromCalendarEvents } from '@/server/contacts/learned';
import { logger } from '@/server/logger';
import { ingestWorkflowEvent, withdrawEventFirings } from '@/server/workflows/triggers/events';
import { calendarAccessGranted } from './access';
import { rangeEndOf } from './expand';
import { providerForConnection } from './connection-provider';
import { CalendarUnreachable, type CalendarProvider, type RemoteCalendar, type RemoteEvent, type SyncResult } from './provider';
import { clearPending, keepPush } from './push';
import { isSelected, selectedIds } from './selection';

/*
 * The local copy of a user's calendars, kept fresh (spec 6, Sync and triggers): each connection's
 * calendars listed again, then each calendar's changes since its cursor written in one
 * transaction with the cursor, so a crash repeats a sync and never loses one. A new event of a
 * selected calendar, or one whose time changed, fires `event.scheduled`; a cancelled or deleted
 * one `event.cancelled` (the event as data: other people write titles and descriptions, and a
 * firing's task treats its payload as untrusted). Nothing fires on a calendar's first import,
 * nor for events that are over.
 */

/** STEWARD_CALENDAR_SYNC_SECONDS (default 300): how old a connection's last sync may get. */
export const syncIntervalMs = () => {
  const s = Number(process.env.STEWARD_CALENDAR_SYNC_SECONDS);
  return (Number.isFinite(s) && s > 0 ? s : 300) * 1000;
};

const CHUNK = 500;

export type SyncOutcome = { connectionId: string; ok: boolean; calendars: number; changed: number; deleted: number; fired: number; error: string | null };

/** Connections whose sync is due: never synced, synced longer ago than the interval, or failing and not tried for that long. */
export async function dueConnections(db: Db, now = new Date(), limit = 500): Promise<string[]> {
  const cutoff = new Date(now.getTime() - syncIntervalMs() + 5_000);
  const rows = await db
    .select({ id: calendarConnections.id })
    .from(calendarConnections)
    .where(
      or(
        and(eq(calendarConnections.status, 'active'), or(isNull(calendarConnections.lastSyncedAt), lt(calendarConnections.lastSyncedAt, cutoff))),
        and(eq(calendarConnections.status, 'failing'), lt(calendarConnections.updatedAt, cutoff)),
      ),
    )
    .orderBy(asc(calendarConnections.lastSyncedAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** The provider's calendars recorded on the connection: new ones added, names and access kept current, gone ones dropped (with their events). */
export async function recordCalendars(db: Tx, connection: Pick<CalendarConnectionRow, 'id' | 'userId'>, list: RemoteCalendar[]): Promise<CalendarRow[]> {
  for (const c of list) {
    const values = { name: c.name, color: c.color, timezone: c.timezone, readOnly: c.readOnly, primary: c.primary };
    await db
      .insert(calendars)
      .values({ connectionId: connection.id, userId: connection.userId, remoteId: c.remoteId, ...values })
      .onConflictDoUpdate({ target: [calendars.connectionId, calendars.remoteId], set: values });
  }
  const kept = list.map((c) => c.remoteId);
  const gone = await db.select({ id: calendars.id, remoteId: calendars.remoteId }).from(calendars).where(eq(calendars.connectionId, connection.id));
  const drop = gone.filter((g) => !kept.includes(g.remoteId)).map((g) => g.id);
  if (drop.length) await db.delete(calendars).where(inArray(calendars.id, drop));
  return db.select().from(calendars).where(eq(calendars.connectionId, connection.id));
}

/** The event as the trigger's payload: what the event says, as data. */
export const payload = (calendar: CalendarRow, e: Pick<CalendarEventRow, 'id' | 'title' | 'start' | 'end' | 'allDay' | 'timezone' | 'location' | 'description' | 'attendees' | 'organizer' | 'status' | 'recurrence' | 'recurrenceOf' | 'uid'>) => ({
  id: e.id,
  calendarId: calendar.id,
  calendarName: calendar.name,
  uid: e.uid,
  title: e.title,
  start: e.start.toISOString(),
  end: e.end.toISOString(),
  // The names timestamp triggers read (as POST /calendar/events gives them).
  startTime: e.start.toISOString(),
  endTime: e.end.toISOString(),
  allDay: e.allDay,
  timezone: e.timezone,
  location: e.location,
  description: e.description,
  attendees: e.attendees,
  organizer: e.organizer,
  status: e.status,
  recurring: Boolean(e.recurrence?.length || e.recurrenceOf),
});

/** The id a trigger names an event by: one per event and time, so a moved event fires again and a repeated sync does not. */
export const triggerId = (calendarId: string, providerEventId: string, start: Date) => `calendar:${calendarId}:${providerEventId}@${start.toISOString()}`;

export const rowValues = (calendar: CalendarRow, e: RemoteEvent) => ({
  calendarId: calendar.id,
  userId: calendar.userId,
  providerEventId: e.providerEventId,
  uid: e.uid,
  etag: e.etag,
  status: e.status,
  title: e.title,
  description: e.description,
  location: e.location,
  start: e.start,
  end: e.end,
  allDay: e.allDay,
  timezone: e.timezone,
  attendees: e.attendees,
  organizer: e.organizer,
  recurrence: e.recurrence,
  recurrenceOf: e.recurrenceOf,
  originalStart: e.originalStart,
  url: e.url,
  rangeEnd: rangeEndOf({ ...e, recurrence: e.recurrence ?? null }),
});

type Change = { type: 'event.scheduled' | 'event.cancelled'; row: CalendarEventRow; previous: CalendarEventRow | null };

const sameLines = (a: string[] | null, b: string[] | null) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
export const notOver = (r: Pick<CalendarEventRow, 'rangeEnd' | 'end'>, now: Date) => r.rangeEnd === null || r.rangeEnd > now;

/**
 * One calendar's sync result written with its new cursor, in one transaction. Answers null (and
 * writes nothing) when another sync moved the cursor meanwhile: its result stands.
 */
export async function applySync(
  db: Db,
  connection: Pick<CalendarConnectionRow, 'accountId' | 'userId' | 'provider'>,
  calendar: CalendarRow,
  from: string | null,
  result: SyncResult,
  o: { fire: boolean; now?: Date },
): Promise<{ changed: number; deleted: number; fired: number } | null> {
  const now = o.now ?? new Date();
  return db.transaction(async (tx) => {
    const [locked] = await tx.select({ cursor: calendars.syncCursor }).from(calendars).where(eq(calendars.id, calendar.id)).for('update');
    if (!locked || locked.cursor !== from) return null;

    const changedIds = result.changed.map((e) => e.providerEventId);
    // A CalDAV resource is one unit: a changed (or deleted) one replaces its overrides too.
    const resources = connection.provider === 'caldav' ? [...result.changed.filter((e) => !e.recurrenceOf).map((e) => e.providerEventId), ...result.deleted] : [];
    const touched = [...changedIds, ...result.deleted];
    const existing: CalendarEventRow[] = result.full
      ? await tx.select().from(calendarEvents).where(eq(calendarEvents.calendarId, calendar.id))
      : touched.length || resources.length
        ? (
            await Promise.all(
              chunks([...new Set([...touched, ...resources])], CHUNK).map((ids) =>
                tx
                  .select()
                  .from(calendarEvents)
                  .where(and(eq(calendarEvents.calendarId, calendar.id), or(inArray(calendarEvents.providerEventId, ids), inArray(calendarEvents.recurrenceOf, ids)))),
              ),
            )
          ).flat()
        : [];
    const before = new Map(existing.map((r) => [r.providerEventId, r]));
    const incoming = new Set(changedIds);
    const gone = new Set(result.deleted);
    if (result.full) for (const r of existing) if (!incoming.has(r.providerEventId)) gone.add(r.providerEventId);
    const resourceSet = new Set(resources);
    for (const r of existing) if (r.recurrenceOf && resourceSet.has(r.recurrenceOf) && !incoming.has(r.providerEventId)) gone.add(r.providerEventId);

    const written: CalendarEventRow[] = [];
    for (const part of chunks(result.changed, CHUNK)) {
      const values = part.map((e) => rowValues(calendar, e));
      written.push(
        ...(await tx
          .insert(calendarEvents)
          .values(values)
          .onConflictDoUpdate({
            target: [calendarEvents.calendarId, calendarEvents.providerEventId],
            set: Object.fromEntries(
              ['uid', 'etag', 'status', 'title', 'description', 'location', 'start', 'end', 'allDay', 'timezone', 'attendees', 'organizer', 'recurrence', 'recurrenceOf', 'originalStart', 'url', 'rangeEnd'].map((k) => [
                k,
                sql.raw(`excluded.${toColumn(k)}`),
              ]),
            ),
          })
          .returning()),
      );
    }
    const removed = existing.filter((r) => gone.has(r.providerEventId) && !incoming.has(r.providerEventId));
    for (const ids of chunks(
      removed.map((r) => r.id),
      CHUNK,
    ))
      await tx.delete(calendarEvents).where(inArray(calendarEvents.id, ids));
    await tx.update(calendars).set({ syncCursor: result.cursor }).where(eq(calendars.id, calendar.id));

    let fired = 0;
    if (o.fire) {
      const changes: Change[] = [];
      for (const row of written) {
        const prev = before.get(row.providerEventId) ?? null;
        if (row.status === 'cancelled') {
          if (prev && prev.status !== 'cancelled') changes.push({ type: 'event.cancelled', row, previous: prev });
        } else if (!prev || prev.status === 'cancelled' || prev.start.getTime() !== row.start.getTime() || prev.end.getTime() !== row.end.getTime() || !sameLines(prev.recurrence, row.recurrence)) {
          changes.push({ type: 'event.scheduled', row, previous: prev });
        }
      }
      // An override dropped from its resource is its occurrence back in the series: nothing to fire.
      for (const row of removed) if (row.status !== 'cancelled' && !(row.recurrenceOf && resourceSet.has(row.recurrenceOf))) changes.push({ type: 'event.cancelled', row, previous: row });
      const scheduled: CalendarEventRow[] = [];
      for (const c of changes) {
        if (!notOver(c.row, now) && !(c.previous && notOver(c.previous, now))) continue;
        if (c.type === 'event.scheduled') scheduled.push(c.row);
        const at = c.type === 'event.cancelled' ? (c.previous ?? c.row).start : c.row.start;
        if (c.type === 'event.scheduled' && c.previous && c.previous.status !== 'cancelled') {
          // The firings still scheduled relative to the old time are withdrawn: the new time schedules its own.
          await withdrawEventFirings(tx, connection.accountId, connection.userId, triggerId(calendar.id, c.row.providerEventId, c.previous.start));
        }
        await ingestWorkflowEvent(tx, { accountId: connection.accountId, userId: connection.userId, type: c.type, id: triggerId(calendar.id, c.row.providerEventId, at), data: payload(calendar, c.row), at: now });
        fired++;
      }
      // The people on a new or moved event who are not yet contacts become contacts (source: calendar).
      await learnFromCalendarEvents(tx, connection, scheduled);
    }
    return { changed: written.length, deleted: removed.length, fired };
  });
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

const toColumn = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * One connection synced: its calendars listed, each calendar's changes applied. A provider that
 * cannot be reached marks the connection failing with its reason (and since when); the next
 * success clears it. `provider` is for tests and the bench (a connection's own otherwise).
 */
export async function syncConnection(db: Db, connectionId: string, o: { now?: Date; provider?: CalendarProvider; calendarId?: string } = {}): Promise<SyncOutcome> {
  const now = o.now ?? new Date();
  const [connection] = await db.select().from(calendarConnections).where(eq(calendarConnections.id, connectionId));
  const outcome: SyncOutcome = { connectionId, ok: false, calendars: 0, changed: 0, deleted: 0, fired: 0, error: null };
  if (!connection || connection.status === 'revoked') return { ...outcome, error: connection ? 'revoked' : 'not_found' };
  if (o.calendarId) return syncPushedCalendar(db, connection, o.calendarId, { ...o, now }, outcome);
  try {
    // Notifications from now on ask for another sync: this one may already have read past their change.
    await clearPending(db, connectionId);
    const provider = o.provider ?? (await providerForConnection(db, connection));
    const list = await recordCalendars(db, connection, await provider.listCalendars());
    const [user] = await db.select({ preferences: users.preferences }).from(users).where(eq(users.id, connection.userId));
    const selected = selectedIds(user?.preferences);
    const firstImport = connection.lastSyncedAt === null;
    for (const calendar of list) {
      const result = await provider.sync({ remoteId: calendar.remoteId, cursor: calendar.syncCursor, timezone: calendar.timezone });
      const fire = !firstImport && calendar.syncCursor !== null && (selected.length === 0 || selected.includes(calendar.id));
      const applied = await applySync(db, connection, calendar, calendar.syncCursor, result, { fire, now });
      outcome.calendars++;
      if (applied) {
        outcome.changed += applied.changed;
        outcome.deleted += applied.deleted;
        outcome.fired += applied.fired;
      }
    }
    await db.update(calendarConnections).set({ status: 'active', lastSyncedAt: now, lastSyncError: null, failingSince: null }).where(eq(calendarConnections.id, connectionId));
    // Push channels made, renewed or stopped as the calendars read say (never failing the sync).
    await keepPush(db, connection, list, provider, selected, now);
    // A connection that works again: tasks that waited for a calendar go on (server/calendars/access.ts).
    if (connection.status !== 'active') await calendarAccessGranted(db, connection.userId, now);
    return { ...outcome, ok: true };
  } catch (e) {
    if (!(e instanceof CalendarUnreachable)) logger.error({ err: e, connectionId }, 'calendar sync failed');
    // The provider's own words for the user; an error of Steward's own is not theirs to read.
    const reason = e instanceof CalendarUnreachable ? e.reason.slice(0, 500) : 'The sync failed unexpectedly; it is tried again at the next interval';
    await db
      .update(calendarConnections)
      .set({ status: 'failing', lastSyncError: reason, failingSince: sql`coalesce(${calendarConnections.failingSince}, ${now.toISOString()}::timestamptz)` })
      .where(eq(calendarConnections.id, connectionId));
    return { ...outcome, error: reason };
  }
}

/**
 * One calendar synced because its provider pushed a change (./push-notifications.ts): only its
 * changes since its cursor, firing as any sync does; nothing at all for a calendar not read. The connection's state and its interval are
 * the periodic sync's: a failure here is logged and left to it.
 */
async function syncPushedCalendar(db: Db, connection: CalendarConnectionRow, calendarId: string, o: { now: Date; provider?: CalendarProvider }, outcome: SyncOutcome): Promise<SyncOutcome> {
  const [calendar] = await db.select().from(calendars).where(and(eq(calendars.id, calendarId), eq(calendars.connectionId, connection.id)));
  if (!calendar) return { ...outcome, error: 'not_found' };
  try {
    await clearPending(db, connection.id, calendarId);
    const [user] = await db.select({ preferences: users.preferences }).from(users).where(eq(users.id, connection.userId));
    const selected = selectedIds(user?.preferences);
    // No longer read (a notification that came before its channel was stopped): the provider is
    // not asked and nothing is stored; the periodic sync alone looks at that calendar now.
    if (!isSelected(selected, calendar.id)) {
      logger.info({ connectionId: connection.id, calendarId }, 'calendar push: a notification for a calendar no longer read is ignored');
      return { ...outcome, ok: true };
    }
    const provider = o.provider ?? (await providerForConnection(db, connection));
    const result = await provider.sync({ remoteId: calendar.remoteId, cursor: calendar.syncCursor, timezone: calendar.timezone });
    const fire = connection.lastSyncedAt !== null && calendar.syncCursor !== null;
    const applied = await applySync(db, connection, calendar, calendar.syncCursor, result, { fire, now: o.now });
    return { ...outcome, ok: true, calendars: 1, changed: applied?.changed ?? 0, deleted: applied?.deleted ?? 0, fired: applied?.fired ?? 0 };
  } catch (e) {
    logger.warn({ err: e, connectionId: connection.id, calendarId }, 'calendar push: the pushed sync failed; the periodic sync carries on');
    return { ...outcome, error: e instanceof CalendarUnreachable ? e.reason.slice(0, 500) : 'The sync failed unexpectedly' };
  }
}
