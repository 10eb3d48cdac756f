import { and, asc, eq, ne } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { calendarConnections, calendarEvents, calendars, users, type CalendarConnectionRow, type CalendarEventRow, type CalendarRow } from '@/db/schema';
import { isSelected, selectedIds } from './selection';

/*
 * Where a calendar write goes (spec 6: "executing writes to the calendar the event lives in"):
 * a new event to the calendar the agent named, else to the user's primary writable calendar
 * among those read, else the first writable one read, else any writable one (at each step the
 * provider the user prefers, `preferredProviders.calendar`, first); a change or a
 * cancellation to the calendar of the stored event. Only the acting user's own calendars, of a
 * connection that is not revoked, are ever found: anyone else's is "not found".
 */

export type WriteTarget = { calendar: CalendarRow; connection: CalendarConnectionRow };

const live = (userId: string) => and(eq(calendars.userId, userId), eq(calendarConnections.userId, userId), ne(calendarConnections.status, 'revoked'));

/** One of the user's calendars, with its connection; null when it is not theirs or no longer connected. */
export async function userCalendar(db: Db | Tx, userId: string, calendarId: string): Promise<WriteTarget | null> {
  const [row] = await db
    .select({ calendar: calendars, connection: calendarConnections })
    .from(calendars)
    .innerJoin(calendarConnections, eq(calendarConnections.id, calendars.connectionId))
    .where(and(live(userId), eq(calendars.id, calendarId)));
  return row ?? null;
}

/** The calendar a new event goes to when none is named; null when the user has no writable calendar connected. */
export async function defaultCalendar(db: Db | Tx, userId: string): Promise<WriteTarget | null> {
  const [[user], rows] = await Promise.all([
    db.select({ preferences: users.preferences, preferredProviders: users.preferredProviders }).from(users).where(eq(users.id, userId)),
    db
      .select({ calendar: calendars, connection: calendarConnections })
      .from(calendars)
      .innerJoin(calendarConnections, eq(calendarConnections.id, calendars.connectionId))
      .where(and(live(userId), eq(calendars.readOnly, false)))
      .orderBy(asc(calendarConnections.createdAt), asc(calendars.createdAt)),
  ]);
  const selected = selectedIds(user?.preferences);
  const read = rows.filter((r) => isSelected(selected, r.calendar.id));
  // `preferredProviders.calendar` (spec 1): with calendars of several providers, the preferred one's first.
  const want = (user?.preferredProviders as { calendar?: unknown } | null | undefined)?.calendar;
  const pick = (list: WriteTarget[]) => {
    const preferred = list.filter((r) => r.connection.provider === want);
    return preferred.find((r) => r.calendar.primary) ?? preferred[0] ?? list.find((r) => r.calendar.primary) ?? list[0] ?? null;
  };
  return pick(read) ?? pick(rows);
}

/** A stored event of the user (not an occurrence generated from a series), with where it lives. */
export async function userEvent(db: Db | Tx, userId: string, eventId: string): Promise<(WriteTarget & { event: CalendarEventRow }) | null> {
  const [row] = await db
    .select({ event: calendarEvents, calendar: calendars, connection: calendarConnections })
    .from(calendarEvents)
    .innerJoin(calendars, eq(calendars.id, calendarEvents.calendarId))
    .innerJoin(calendarConnections, eq(calendarConnections.id, calendars.connectionId))
    .where(and(live(userId), eq(calendarEvents.userId, userId), eq(calendarEvents.id, eventId)));
  return row ?? null;
}
