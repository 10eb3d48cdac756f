import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod } from 'ical-generator';
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

/** The invitation's iCalendar text: one VEVENT organised by `organizer`, every attendee asked to reply. */
export function invitationIcs(input: { uid: string; event: CalendarEvent; organizer: { name: string; email: string }; attendees: string[]; now: Date }): string {
  const calendar = ical({ prodId: { company: 'Steward', product: 'assistant', language: 'EN' }, method: ICalCalendarMethod.REQUEST });
  calendar.createEvent({
    id: input.uid,
    sequence: 0,
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
export function invitationText(event: CalendarEvent): string {
  const lines = [`You are invited: ${event.title}`, `When: ${event.start.toISOString()} to ${event.end.toISOString()}`];
  if (event.location) lines.push(`Where: ${event.location}`);
  return lines.join('\n');
}
