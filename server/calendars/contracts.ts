import { z } from 'zod';
import { OAuthCalendarConnection } from './oauth-contracts';

/* The calendar API's inputs and answers (spec 6, Calendars: API). */

const IsoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset' });

export const ConnectCalendarBody = z.object({
  provider: z.literal('caldav', { message: 'only "caldav" connects with a password; Google and Microsoft connect through GET /oauth/calendar/authorize' }),
  url: z.string().min(1).max(2000).describe('The CalDAV server’s URL (its root, /.well-known/caldav or the principal’s)'),
  username: z.string().min(1).max(320),
  password: z.string().min(1).max(1000).describe('An app password; sealed, never returned'),
});

export const CalendarConnection = OAuthCalendarConnection;
export const CalendarConnectionResponse = z.object({ ok: z.literal(true), connection: CalendarConnection });
export const CalendarConnectionsResponse = z.object({ ok: z.literal(true), connections: z.array(CalendarConnection) });
export const CalendarConnectionParams = z.object({ connectionId: z.string().min(1) });
export const CalendarOk = z.object({ ok: z.literal(true) });

export const CalendarsResponse = z.object({
  ok: z.literal(true),
  calendars: z.array(
    z.object({
      id: z.string(),
      connectionId: z.string(),
      provider: z.enum(['caldav', 'google', 'microsoft']),
      name: z.string(),
      color: z.string().nullable(),
      readOnly: z.boolean(),
      primary: z.boolean(),
      selected: z.boolean().describe('Read by the assistant: the id is in preferences.calendars.read, or that list is empty'),
    }),
  ),
});

export const EventsQuery = z.object({ from: IsoDateTime, to: IsoDateTime.describe('At most 62 days after from'), calendarId: z.string().min(1).optional() });
export const FreeBusyQuery = z.object({ from: IsoDateTime, to: IsoDateTime.describe('At most 62 days after from') });

export const CalendarEvent = z.object({
  id: z.string().describe('The event’s id; an occurrence of a series: `<series id>_<its original start, UTC>`'),
  calendarId: z.string(),
  title: z.string(),
  start: z.string(),
  end: z.string(),
  allDay: z.boolean().describe('An all-day event runs from the UTC midnight of its first date to that of the day after its last'),
  timezone: z.string().nullable(),
  location: z.string().nullable(),
  description: z.string().nullable(),
  attendees: z.array(z.object({ email: z.string(), name: z.string().nullable(), response: z.string() })),
  organizer: z.string().nullable(),
  status: z.enum(['confirmed', 'tentative', 'cancelled']),
  recurring: z.boolean(),
});

export const EventsResponse = z.object({ ok: z.literal(true), events: z.array(CalendarEvent) });
export const FreeBusyResponse = z.object({ ok: z.literal(true), busy: z.array(z.object({ start: z.string(), end: z.string() })) });
