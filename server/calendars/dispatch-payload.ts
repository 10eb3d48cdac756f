import { z } from 'zod';

/*
 * What a staged calendar dispatch carries (spec 6, Agent tools): `payload.operation` (create,
 * update, cancel) beside the event's own fields, flat, as create_calendar_event has always staged
 * them (the approvals page and the cart's summaries read payload.title/start/end/location). The
 * attendees a write invites are the dispatch's recipients (`to`), which the person sees and may
 * edit; `payload.attendees` only shows them.
 *
 * Besides the event, the payload keeps what execution needs to write exactly once:
 *  - `uid`: the iCalendar UID, chosen at staging, so a create retried after a crash finds the event
 *    it made (findByUid) instead of making a second, and an invitation's update or cancel names it;
 *  - `calendarId`: the calendar written to (null: none was connected when it was staged);
 *  - update and cancel: `eventId` (the stored event), and `etag`, the version that was read: if the
 *    event changed since, the write does nothing and the dispatch fails with `calendar_conflict`;
 *  - one occurrence of a series: `eventId` is the series and `occurrence` the start the series
 *    gives it (what list_events' `<series id>_<start>` names), `etag` the series' version read;
 *  - update: `changed`, the fields the write changes (the rest of the event is shown, not written).
 */

export const CALENDAR_OPERATIONS = ['create', 'update', 'cancel'] as const;
export type CalendarOperation = (typeof CALENDAR_OPERATIONS)[number];
export const CHANGEABLE = ['title', 'start', 'end', 'attendees', 'location', 'description'] as const;
export type ChangeableField = (typeof CHANGEABLE)[number];

const text = z.string().nullable().optional();
export const CalendarPayload = z.object({
  // A dispatch staged before operations existed is a create.
  operation: z.enum(CALENDAR_OPERATIONS).default('create'),
  uid: z.string().min(1).nullable().optional(),
  calendarId: z.string().nullable().optional(),
  eventId: z.string().nullable().optional(),
  etag: z.string().nullable().optional(),
  /** One occurrence of the series `eventId` (its original start, ISO 8601): the write is about that occurrence alone. */
  occurrence: z.string().nullable().optional(),
  changed: z.array(z.enum(CHANGEABLE)).optional(),
  title: z.string(),
  start: z.string(),
  end: z.string(),
  location: text,
  description: text,
  conference: z.boolean().optional(),
  /** Shown only: the attendees invited are the dispatch's recipients (`to`). */
  attendees: z.array(z.string()).optional(),
  message: text,
  /** An invitation (no calendar connected): its SEQUENCE, so a client takes an update or cancel over what it has. */
  sequence: z.number().int().min(0).optional(),
});
export type CalendarPayload = z.infer<typeof CalendarPayload>;

/** The payload of a calendar dispatch, or why it cannot be executed. */
export function calendarPayloadOf(payload: Record<string, unknown> | null): CalendarPayload | { problem: string } {
  const parsed = CalendarPayload.safeParse(payload ?? {});
  if (!parsed.success) return { problem: `the event is incomplete (${parsed.error.issues.map((i) => i.path.join('.') || 'payload').join(', ')})` };
  const p = parsed.data;
  const start = new Date(p.start);
  const end = new Date(p.end);
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return { problem: 'the event has no valid start and end' };
  if (end <= start) return { problem: 'the event ends before it starts' };
  if (p.operation !== 'create' && !p.eventId && !p.uid) return { problem: `an ${p.operation} names no event` };
  if (p.occurrence && (!p.eventId || Number.isNaN(new Date(p.occurrence).getTime()))) return { problem: 'the occurrence named is not one of a stored series' };
  return p;
}
