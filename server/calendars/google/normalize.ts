import type { AttendeeResponse, RemoteEvent } from '../provider';
import type { GoogleEvent } from './api';

/*
 * A Google Calendar event as Steward keeps every provider's: the times as instants (an all-day
 * event as UTC midnights of its dates, end exclusive, as Google gives them), the zone its times
 * are written in (a recurrence is expanded in it, across DST), attendees' answers in iCalendar's
 * words, and a recurring series as its master's RRULE/EXDATE/RDATE lines with each overridden
 * instance pointing at its master and the occurrence it replaces.
 */

const RESPONSES: Record<string, AttendeeResponse> = { accepted: 'accepted', declined: 'declined', tentative: 'tentative', needsAction: 'needs-action' };

/** A Google time (`dateTime` with its offset, or an all-day `date`) as an instant; null when neither parses. */
export function googleInstant(w: { dateTime?: string; date?: string } | undefined): { at: Date; allDay: boolean } | null {
  if (w?.dateTime) {
    const at = new Date(w.dateTime);
    return Number.isNaN(at.getTime()) ? null : { at, allDay: false };
  }
  if (w?.date && /^\d{4}-\d{2}-\d{2}$/.test(w.date)) return { at: new Date(`${w.date}T00:00:00.000Z`), allDay: true };
  return null;
}

/**
 * The event as Steward keeps it, or null when Google sent one without usable times (only a
 * cancelled instance may come that bare: it is returned with its original start as its time).
 */
export function fromGoogle(e: GoogleEvent, calendarTimeZone: string | null): RemoteEvent | null {
  const original = googleInstant(e.originalStartTime);
  const start = googleInstant(e.start) ?? (e.status === 'cancelled' ? original : null);
  const end = googleInstant(e.end) ?? (e.status === 'cancelled' && start ? start : null);
  if (!start || !end) return null;
  return {
    providerEventId: e.id,
    uid: e.iCalUID ?? null,
    etag: e.etag ?? null,
    status: e.status ?? 'confirmed',
    title: e.summary ?? '',
    description: e.description ?? null,
    location: e.location ?? null,
    start: start.at,
    end: end.at,
    allDay: start.allDay,
    timezone: e.start?.timeZone ?? calendarTimeZone,
    attendees: (e.attendees ?? []).filter((a) => a.email).map((a) => ({ email: a.email!.toLowerCase(), name: a.displayName ?? null, response: RESPONSES[a.responseStatus ?? ''] ?? 'needs-action' })),
    organizer: e.organizer?.email?.toLowerCase() ?? null,
    recurrence: e.recurrence?.length ? e.recurrence : null,
    recurrenceOf: e.recurringEventId ?? null,
    originalStart: original?.at ?? null,
    url: e.htmlLink ?? null,
  };
}

/** A Google time for a write: a date for an all-day event, else the instant in UTC with the zone it is meant in. */
export function toGoogleTime(at: Date, allDay: boolean, timezone: string | null): { date: string } | { dateTime: string; timeZone?: string } {
  if (allDay) return { date: at.toISOString().slice(0, 10) };
  return { dateTime: at.toISOString(), ...(timezone ? { timeZone: timezone } : {}) };
}
