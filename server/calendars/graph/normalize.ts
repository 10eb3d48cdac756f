import type { AttendeeResponse, RemoteEvent } from '../provider';
import type { GraphEvent } from './api';

/*
 * A Microsoft Graph event as Steward keeps every provider's. Graph expands recurring series in a
 * calendar view, so each occurrence and exception arrives as an event of its own (`type`
 * occurrence/exception, with its seriesMasterId): nothing is left to expand. Times come in UTC
 * (asked for with Prefer: outlook.timezone); one in another zone is converted (IANA names; a
 * Windows zone name Graph did not convert cannot be read, and the event is skipped).
 */

const RESPONSES: Record<string, AttendeeResponse> = {
  accepted: 'accepted',
  organizer: 'accepted',
  declined: 'declined',
  tentativelyAccepted: 'tentative',
  none: 'needs-action',
  notResponded: 'needs-action',
};

/** The UTC offset (ms) of an IANA zone at an instant. */
function offsetAt(zone: string, ms: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second) - Math.floor(ms / 1000) * 1000;
}

/** A wall time (no offset) in a zone as an instant; null when either cannot be read. */
export function wallTimeToInstant(dateTime: string, zone: string | null | undefined): Date | null {
  const wall = Date.parse(`${dateTime.replace(/Z$/, '').slice(0, 23)}Z`);
  if (Number.isNaN(wall)) return null;
  if (!zone || zone === 'UTC' || zone === 'Etc/UTC' || zone === 'tzone://Microsoft/Utc') return new Date(wall);
  try {
    // Read the offset twice so a time next to a DST change lands on the right side of it.
    const guess = wall - offsetAt(zone, wall);
    return new Date(wall - offsetAt(zone, guess));
  } catch {
    return null;
  }
}

const text = (body: GraphEvent['body']) => {
  const content = body?.content ?? '';
  if (!content) return null;
  if ((body?.contentType ?? '').toLowerCase() !== 'html') return content;
  return content
    .replace(/<(br|\/p|\/div)[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
};

/** The event as Steward keeps it, or null when its times cannot be read. */
export function fromGraph(e: GraphEvent): RemoteEvent | null {
  if (!e.start || !e.end) return null;
  const allDay = e.isAllDay === true;
  const at = (w: { dateTime: string; timeZone?: string }) => (allDay ? new Date(`${w.dateTime.slice(0, 10)}T00:00:00.000Z`) : wallTimeToInstant(w.dateTime, w.timeZone));
  const start = at(e.start);
  const end = at(e.end);
  if (!start || !end || Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return null;
  const recurring = e.type === 'occurrence' || e.type === 'exception';
  return {
    providerEventId: e.id,
    uid: e.iCalUId ?? null,
    etag: e['@odata.etag'] ?? null,
    status: e.isCancelled ? 'cancelled' : e.showAs === 'tentative' ? 'tentative' : 'confirmed',
    title: e.subject ?? '',
    description: text(e.body) ?? e.bodyPreview ?? null,
    location: e.location?.displayName || null,
    start,
    end,
    allDay,
    timezone: e.originalStartTimeZone ?? null,
    attendees: (e.attendees ?? [])
      .filter((a) => a.emailAddress.address)
      .map((a) => ({ email: a.emailAddress.address!.toLowerCase(), name: a.emailAddress.name ?? null, response: RESPONSES[a.status?.response ?? ''] ?? 'needs-action' })),
    organizer: e.organizer?.emailAddress.address?.toLowerCase() ?? null,
    recurrence: null,
    recurrenceOf: recurring ? (e.seriesMasterId ?? null) : null,
    originalStart: recurring ? (e.originalStart && !Number.isNaN(Date.parse(e.originalStart)) ? new Date(e.originalStart) : start) : null,
    url: e.webLink ?? null,
  };
}

/** A Graph time for a write: the instant in UTC (an all-day event: its date at midnight). */
export const toGraphTime = (at: Date, allDay: boolean) => ({ dateTime: allDay ? `${at.toISOString().slice(0, 10)}T00:00:00` : at.toISOString().slice(0, 19), timeZone: 'UTC' });
