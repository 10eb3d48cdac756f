import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { DispatchContent } from '@/db/schema';

/*
 * A calendar dispatch leaves as an iTIP invitation (RFC 5546, METHOD:REQUEST) mailed to its
 * attendees: every calendar client (Google, Outlook, Apple) offers to accept it. The event is
 * the dispatch's payload; the attendees are its recipients (`to`), which is what the person sees
 * and may change (PATCH .../dispatches/{index}), so they win over any list inside the payload.
 */

export type CalendarEvent = { title: string; start: Date; end: Date; location: string | null };

/** The event a staged calendar dispatch carries, or why it cannot be sent. */
export function eventOf(content: DispatchContent): CalendarEvent | { problem: string } {
  const p = content.payload ?? {};
  const title = typeof p.title === 'string' && p.title.trim() ? p.title.trim() : (content.subject ?? '').trim();
  const start = typeof p.start === 'string' ? new Date(p.start) : null;
  const end = typeof p.end === 'string' ? new Date(p.end) : null;
  if (!title) return { problem: 'the event has no title' };
  if (!start || Number.isNaN(start.getTime()) || !end || Number.isNaN(end.getTime())) return { problem: 'the event has no valid start and end' };
  if (end <= start) return { problem: 'the event ends before it starts' };
  return { title, start, end, location: typeof p.location === 'string' && p.location.trim() ? p.location.trim() : null };
}

/**
 * The invitation's iCalendar text: one VEVENT organised by `organizer`, every attendee asked to
 * reply. A change is another REQUEST under the same UID with a higher SEQUENCE; a cancellation is
 * METHOD:CANCEL (RFC 5546), which clients apply by removing the event.
 */
export function invitationIcs(input: { uid: string; event: CalendarEvent; organizer: { name: string; email: string }; attendees: string[]; now: Date; cancel?: boolean; sequence?: number }): string {
  const calendar = ical({ prodId: { company: 'Steward', product: 'assistant', language: 'EN' }, method: input.cancel ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST });
  calendar.createEvent({
    id: input.uid,
    sequence: input.sequence ?? 0,
    ...(input.cancel ? { status: ICalEventStatus.CANCELLED } : {}),
    stamp: input.now,
    start: input.event.start,
    end: input.event.end,
    summary: input.event.title,
    location: input.event.location,
    organizer: input.organizer,
    attendees: input.attendees.map((email) => ({ email, rsvp: true, role: ICalAttendeeRole.REQ, status: ICalAttendeeStatus.NEEDSACTION })),
  });
  return calendar.toString();
}

/** The plain-text part beside the invitation, for mail clients that do not read text/calendar. */
export function invitationText(event: CalendarEvent, o: { operation?: 'create' | 'update' | 'cancel'; message?: string | null } = {}): string {
  const head = o.operation === 'cancel' ? `Cancelled: ${event.title}` : o.operation === 'update' ? `Updated invitation: ${event.title}` : `You are invited: ${event.title}`;
  const lines = [head, `When: ${event.start.toISOString()} to ${event.end.toISOString()}`];
  if (event.location) lines.push(`Where: ${event.location}`);
  if (o.message?.trim()) lines.push('', o.message.trim());
  return lines.join('\n');
}
