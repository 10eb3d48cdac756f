import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { calendarEvents, cartDispatches, cartDispatchVersions, carts, type CalendarEventRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { invalidFields, notFound } from '@/server/http/errors';
import { expandEvents } from './expand';
import { calendarPayloadOf, type CalendarPayload, type ChangeableField } from './dispatch-payload';
import { defaultCalendar, userCalendar, userEvent } from './write-target';

/*
 * The calendar writes as the agent stages them (spec 6, Agent tools): what a create, an update or
 * a cancel will do, decided and shown now, executed once the `calendar` cell (or the person)
 * releases it (./dispatch.ts). Everything is the acting user's own: a calendar or an event of
 * anyone else is "not found", exactly like one that does not exist.
 *
 * With a calendar connected, an event is one of the stored events (the id list_events gives). A
 * user without one still gets what Steward always did, an invitation by email; such an event is
 * named afterwards by its UID (create_calendar_event answers it as eventId), and a change or a
 * cancellation of it is another invitation (METHOD:REQUEST, METHOD:CANCEL) under that UID.
 */

export type StagedCalendarWrite = { to: string[]; payload: CalendarPayload; description: string };

const UID_HOST = 'steward.calendar';
const newUid = () => `${randomUUID()}@${UID_HOST}`;
const iso = (d: Date) => d.toISOString();
const emails = (e: Pick<CalendarEventRow, 'attendees'>) => e.attendees.map((a) => a.email).filter(Boolean);
const when = (p: Pick<CalendarPayload, 'start' | 'end'>) => `${p.start} to ${p.end}`;

export type CreateInput = { title: string; start: string; end: string; attendees?: string[]; location?: string; description?: string; calendarId?: string; conference?: boolean };

export async function stageCreate(db: Db, actor: UserActor, input: CreateInput): Promise<StagedCalendarWrite> {
  checkTimes(input.start, input.end);
  const target = input.calendarId ? await userCalendar(db, actor.user.id, input.calendarId) : await defaultCalendar(db, actor.user.id);
  if (input.calendarId && !target) throw notFound('Calendar');
  if (target?.calendar.readOnly) throw invalidFields([{ field: 'calendarId', problem: `the calendar “${target.calendar.name}” is read-only` }]);
  const attendees = [...new Set(input.attendees ?? [])];
  if (!target && !attendees.length)
    throw invalidFields([{ field: 'attendees', problem: 'no calendar is connected, so the event can only go out as an invitation: name at least one attendee (or ask the user to connect a calendar)' }]);
  const payload: CalendarPayload = {
    operation: 'create',
    uid: newUid(),
    calendarId: target?.calendar.id ?? null,
    title: input.title,
    // As the agent wrote them (with their offset): the person approves the times in the zone they were meant in.
    start: input.start,
    end: input.end,
    location: input.location ?? null,
    description: input.description ?? null,
    conference: input.conference ?? false,
  };
  const where = target ? `in the calendar “${target.calendar.name}”` : 'as an invitation by email';
  return { to: attendees, payload: { ...payload, attendees }, description: `Create calendar event “${input.title}” (${when(payload)}) ${where}${attendees.length ? `, inviting ${attendees.join(', ')}` : ''}` };
}

export type UpdateInput = { eventId: string; title?: string; start?: string; end?: string; attendees?: string[]; location?: string | null; description?: string | null; message?: string };

export async function stageUpdate(db: Db, actor: UserActor, input: UpdateInput): Promise<StagedCalendarWrite> {
  const before = await eventToChange(db, actor, input.eventId);
  const changed = (['title', 'start', 'end', 'attendees', 'location', 'description'] as const).filter((f) => input[f] !== undefined) as ChangeableField[];
  if (!changed.length) throw invalidFields([{ field: 'eventId', problem: 'name at least one field to change: title, start, end, attendees, location or description' }]);
  const start = input.start ?? before.payload.start;
  const end = input.end ?? before.payload.end;
  checkTimes(start, end);
  const attendees = input.attendees ? [...new Set(input.attendees)] : before.to;
  const payload: CalendarPayload = {
    ...before.payload,
    operation: 'update',
    changed,
    title: input.title ?? before.payload.title,
    start,
    end,
    location: input.location !== undefined ? input.location : before.payload.location,
    description: input.description !== undefined ? input.description : before.payload.description,
    message: input.message ?? null,
    ...(before.payload.sequence !== undefined ? { sequence: before.payload.sequence + 1 } : {}),
  };
  return { to: attendees, payload: { ...payload, attendees }, description: `Change ${before.what}: ${changed.join(', ')}${input.start || input.end ? ` (now ${when(payload)})` : ''}` };
}

export async function stageCancel(db: Db, actor: UserActor, input: { eventId: string; message?: string }): Promise<StagedCalendarWrite> {
  const before = await eventToChange(db, actor, input.eventId);
  const payload: CalendarPayload = {
    ...before.payload,
    operation: 'cancel',
    message: input.message ?? null,
    ...(before.payload.sequence !== undefined ? { sequence: before.payload.sequence + 1 } : {}),
  };
  return { to: before.to, payload: { ...payload, attendees: before.to }, description: `Cancel ${before.what} (${when(payload)})` };
}

function checkTimes(start: string, end: string) {
  if (new Date(end).getTime() <= new Date(start).getTime()) throw invalidFields([{ field: 'end', problem: 'must be after start' }]);
}

/** The event an update or cancel is about, as it is now: a stored event of the user's calendars, or an invitation Steward sent for them. */
async function eventToChange(db: Db, actor: UserActor, eventId: string): Promise<{ payload: CalendarPayload; to: string[]; what: string }> {
  const stored = await userEvent(db, actor.user.id, eventId);
  if (stored) {
    const what = `calendar event “${stored.event.title}”`;
    const e = stored.event;
    if (e.status === 'cancelled') throw invalidFields([{ field: 'eventId', problem: 'the event is already cancelled' }]);
    if (stored.calendar.readOnly) throw invalidFields([{ field: 'eventId', problem: `the event is in the read-only calendar “${stored.calendar.name}”` }]);
    return {
      what,
      to: emails(e),
      payload: { operation: 'update', uid: e.uid, calendarId: stored.calendar.id, eventId: e.id, etag: e.etag, title: e.title, start: iso(e.start), end: iso(e.end), location: e.location, description: e.description },
    };
  }
  const occurrence = await seriesOccurrence(db, actor, eventId);
  if (occurrence) return occurrence;
  const invitation = await sentInvitation(db, actor, eventId);
  if (invitation) return { ...invitation, what: `calendar event “${invitation.payload.title}”` };
  throw notFound('Event');
}

/**
 * One occurrence list_events generated from a stored series (`<series id>_<original start, UTC>`),
 * as it is now: the write is about it alone (payload.occurrence), against the series' version
 * read (its etag). An id naming no occurrence the series has (moved, excluded, cancelled, or never
 * one) is not found, as list_events would not give it.
 */
async function seriesOccurrence(db: Db, actor: UserActor, eventId: string): Promise<{ payload: CalendarPayload; to: string[]; what: string } | null> {
  const m = /^(.+)_(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(eventId);
  if (!m) return null;
  const series = await userEvent(db, actor.user.id, m[1]);
  if (!series?.event.recurrence?.length || series.event.recurrenceOf) return null;
  const s = series.event;
  if (s.status === 'cancelled') throw invalidFields([{ field: 'eventId', problem: 'the recurring event is already cancelled' }]);
  if (series.calendar.readOnly) throw invalidFields([{ field: 'eventId', problem: `the event is in the read-only calendar “${series.calendar.name}”` }]);
  const at = Date.UTC(+m[2], +m[3] - 1, +m[4], +m[5], +m[6], +m[7]);
  const overrides = await db
    .select()
    .from(calendarEvents)
    .where(and(eq(calendarEvents.calendarId, s.calendarId), eq(calendarEvents.recurrenceOf, s.providerEventId)));
  const length = s.end.getTime() - s.start.getTime();
  const found = expandEvents([s, ...overrides], new Date(at), new Date(at + Math.max(length, 1))).find((o) => o.id === eventId);
  if (!found) return null;
  const day = found.allDay ? iso(found.start).slice(0, 10) : iso(found.start);
  return {
    what: `the occurrence of ${day} of the recurring calendar event “${s.title}” (that occurrence only)`,
    to: emails(s),
    payload: {
      operation: 'update',
      uid: s.uid,
      calendarId: series.calendar.id,
      eventId: s.id,
      etag: s.etag,
      occurrence: new Date(at).toISOString(),
      title: s.title,
      start: iso(found.start),
      end: iso(found.end),
      location: s.location,
      description: s.description,
    },
  };
}

/** The latest invitation Steward sent for the user under this UID (no calendar connected), as it was sent. */
async function sentInvitation(db: Db, actor: UserActor, uid: string): Promise<{ payload: CalendarPayload; to: string[] } | null> {
  const [row] = await db
    .select({ content: cartDispatchVersions.content })
    .from(cartDispatches)
    .innerJoin(carts, eq(carts.id, cartDispatches.cartId))
    .innerJoin(cartDispatchVersions, eq(cartDispatchVersions.id, cartDispatches.currentVersionId))
    .where(
      and(
        eq(carts.userId, actor.user.id),
        eq(carts.accountId, actor.accountId),
        eq(cartDispatches.type, 'calendar_event'),
        eq(cartDispatches.deliveryState, 'provider_accepted'),
        sql`${cartDispatchVersions.content} -> 'payload' ->> 'uid' = ${uid}`,
      ),
    )
    .orderBy(desc(cartDispatches.executedAt))
    .limit(1);
  if (!row) return null;
  const p = calendarPayloadOf(row.content.payload);
  if ('problem' in p || p.calendarId) return null;
  if (p.operation === 'cancel') throw invalidFields([{ field: 'eventId', problem: 'the event is already cancelled' }]);
  return { to: row.content.to, payload: { ...p, eventId: uid, changed: undefined, message: null, sequence: p.sequence ?? 0 } };
}
