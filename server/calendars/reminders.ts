import { and, eq, gt, inArray, isNull, lt, ne, or } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { calendarConnections, calendarEvents, calendars, identifiers, users } from '@/db/schema';
import { logger } from '@/server/logger';
import { createNotice } from '@/server/notices/create';
import { defaultPreferences, deepMerge } from '@/server/user-record/defaults';
import { expandEvents, type ExpandableRow, type Occurrence } from './expand';
import { isSelected, selectedIds } from './selection';

/*
 * Reminders before events (spec 6, Sync and triggers; spec 1, `preferences.reminders`), as notices
 * (server/notices). Run every minute (inngest/functions/calendar-reminders.ts): each
 * occurrence starting soon in a calendar the user reads gets one when its time has come, as
 * `level` (all-events; svc-events: only events the assistant made; none) and `recipient` say.
 * Exactly once per occurrence: the notice's dedupe key is the occurrence and its start, so a
 * second run (or a retried one) finds it made, an event moved to another time is reminded of
 * again at its new time, and a cancelled occurrence (or a deleted event) is not expanded at all.
 * A run that comes late still reminds until the event starts.
 */

/** How long before an event the reminder comes. */
export const REMINDER_LEAD_MS = 10 * 60_000;
/** smartReminders, an event at a place (a location that is not a link): time to get there, added. */
export const TRAVEL_MS = 30 * 60_000;
/** smartReminders, an online meeting (the location is a link): a moment to get ready and join, added. */
export const PREPARATION_MS = 5 * 60_000;
/** How far ahead a run looks: the furthest a reminder can be due, and a minute more (a reminder due exactly now is found). */
const HORIZON_MS = REMINDER_LEAD_MS + TRAVEL_MS + 60_000;

type Prefs = ReturnType<typeof defaultPreferences>;
type Row = ExpandableRow & { userId: string; madeByAssistant: boolean; username: string | null };

const ONLINE = /^\s*(https?:\/\/|www\.|meet\.|teams\.|zoom\.)/i;

/** How long before this occurrence its reminder comes, and why (smartReminders). */
export function reminderLead(location: string | null, smart: boolean): { ms: number; extra: 'travel' | 'preparation' | null } {
  if (!smart || !location?.trim()) return { ms: REMINDER_LEAD_MS, extra: null };
  return ONLINE.test(location) ? { ms: REMINDER_LEAD_MS + PREPARATION_MS, extra: 'preparation' } : { ms: REMINDER_LEAD_MS + TRAVEL_MS, extra: 'travel' };
}

const plainEmail = (v: string | null | undefined) => (v ?? '').replace(/^mailto:/i, '').trim().toLowerCase();

/** The stored rows that can produce an occurrence starting within the horizon: rows of the window, and every override of a series among them. */
async function candidateRows(db: Db, now: Date): Promise<Row[]> {
  const until = new Date(now.getTime() + HORIZON_MS);
  const e = calendarEvents;
  const columns = {
    id: e.id,
    calendarId: e.calendarId,
    providerEventId: e.providerEventId,
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
    updatedAt: e.updatedAt,
    userId: e.userId,
    madeByAssistant: e.madeByAssistant,
    username: calendarConnections.username,
  };
  const live = (q: ReturnType<typeof and>) =>
    db
      .select(columns)
      .from(e)
      .innerJoin(calendars, eq(calendars.id, e.calendarId))
      .innerJoin(calendarConnections, eq(calendarConnections.id, calendars.connectionId))
      .where(and(ne(calendarConnections.status, 'revoked'), q));
  const inWindow = await live(and(lt(e.start, until), or(isNull(e.rangeEnd), gt(e.rangeEnd, now))));
  const seen = new Set(inWindow.map((r) => r.id));
  const series = inWindow.filter((r) => r.recurrence?.length && !r.recurrenceOf);
  if (!series.length) return inWindow;
  const overrides = await live(and(inArray(e.calendarId, [...new Set(series.map((r) => r.calendarId))]), inArray(e.recurrenceOf, [...new Set(series.map((r) => r.providerEventId))])));
  return [...inWindow, ...overrides.filter((r) => !seen.has(r.id))];
}

type Person = { id: string; accountId: string; prefs: Prefs; timezone: string; emails: Set<string>; selected: string[] };

async function people(db: Db, userIds: string[]): Promise<Map<string, Person>> {
  if (!userIds.length) return new Map();
  const rows = await db
    .select({ id: users.id, accountId: users.accountId, email: users.email, preferences: users.preferences, timezone: users.timezone })
    .from(users)
    .where(and(inArray(users.id, userIds), eq(users.status, 'active')));
  const verified = await db
    .select({ userId: identifiers.userId, value: identifiers.value })
    .from(identifiers)
    .where(and(inArray(identifiers.userId, userIds), eq(identifiers.type, 'email'), eq(identifiers.verified, true)));
  return new Map(
    rows.map((u) => [
      u.id,
      {
        id: u.id,
        accountId: u.accountId,
        prefs: deepMerge(defaultPreferences(), u.preferences),
        timezone: u.timezone,
        emails: new Set([plainEmail(u.email), ...verified.filter((v) => v.userId === u.id).map((v) => plainEmail(v.value))].filter(Boolean)),
        selected: selectedIds(u.preferences),
      },
    ]),
  );
}

/** Whether this person gets a reminder of this occurrence, as their preferences say. */
function wanted(p: Person, occ: Occurrence, madeByAssistant: boolean, connectionAddress: string | null): boolean {
  const r = p.prefs.reminders;
  if (r.level === 'none' || (r.level === 'svc-events' && !madeByAssistant)) return false;
  const mine = new Set(p.emails);
  if (connectionAddress?.includes('@')) mine.add(plainEmail(connectionAddress));
  const organizer = plainEmail(occ.organizer);
  // An event without an organizer is one the user keeps for themselves: theirs.
  const asOrganizer = !organizer || mine.has(organizer);
  if (asOrganizer ? r.recipient.asOrganizer === 'none' : r.recipient.asAttendee === 'none') return false;
  // An invitation the user declined is no event of theirs.
  return !occ.attendees.some((a) => mine.has(plainEmail(a.email)) && a.response === 'declined');
}

function when(at: Date, zone: string): string {
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(at);
  } catch {
    return at.toUTCString();
  }
}

/**
 * Every reminder due now: notices for occurrences whose reminder time has come and that have not
 * started. Returns how many notices were made (a second run makes none for the same occurrences).
 */
export async function sendDueReminders(db: Db, now = new Date()): Promise<{ due: number; reminded: number }> {
  const rows = await candidateRows(db, now);
  if (!rows.length) return { due: 0, reminded: 0 };
  const byId = new Map(rows.map((r) => [r.id, r]));
  const masterOf = new Map(rows.filter((r) => !r.recurrenceOf).map((r) => [`${r.calendarId}\u0000${r.providerEventId}`, r]));
  const persons = await people(db, [...new Set(rows.map((r) => r.userId))]);
  const occurrences = expandEvents(rows, now, new Date(now.getTime() + HORIZON_MS)).filter((o) => !o.allDay && o.start > now);
  let due = 0;
  let reminded = 0;
  for (const occ of occurrences) {
    const row = byId.get(occ.rowId);
    const person = row && persons.get(row.userId);
    if (!row || !person || !isSelected(person.selected, occ.calendarId)) continue;
    const lead = reminderLead(occ.location, person.prefs.reminders.smartReminders);
    if (occ.start.getTime() - lead.ms > now.getTime()) continue;
    const master = row.recurrenceOf ? masterOf.get(`${row.calendarId}\u0000${row.recurrenceOf}`) : undefined;
    if (!wanted(person, occ, row.madeByAssistant || master?.madeByAssistant === true, row.username)) continue;
    due++;
    const minutes = Math.max(1, Math.round((occ.start.getTime() - now.getTime()) / 60_000));
    const title = occ.title.trim() || '(no title)';
    const lines = [
      `“${title}” starts ${when(occ.start, person.timezone)}, in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      ...(occ.location ? [`Where: ${occ.location}`] : []),
      ...(lead.extra === 'travel' ? ['Allow about 30 minutes to get there.'] : lead.extra === 'preparation' ? ['Time to get ready to join.'] : []),
    ];
    const made = await createNotice(
      db,
      {
        accountId: person.accountId,
        userId: person.id,
        kind: 'reminder',
        // One per occurrence and start: run twice, one notice; moved, a new one.
        dedupeKey: `reminder:${occ.id}:${occ.start.toISOString()}`,
        // It is about a time: quiet hours must not hold it past the event.
        urgent: true,
        subject: `Reminder: ${title.slice(0, 120)} at ${when(occ.start, person.timezone)}`,
        text: lines.join('\n'),
        linkPath: '/',
      },
      now,
    );
    if (made) reminded++;
  }
  if (reminded) logger.info({ reminded }, 'calendar: reminders sent');
  return { due, reminded };
}
