import { z } from 'zod';

/** Which calendars to connect by OAuth: Google's (the Gmail client) or Microsoft 365's (the Graph client). */
export const CalendarOAuthProviderParam = z.enum(['google', 'microsoft']);

/** Starting a connection as an API caller (the user's credential): the answer is a redirect for the user's browser. */
export const CalendarAuthorizeQuery = z.object({ provider: CalendarOAuthProviderParam });

/** The hosted app's link: the signed-in person's session, and where to come back to (a path of the hosted app). */
export const CalendarHostedConnectQuery = z.object({ provider: CalendarOAuthProviderParam, returnTo: z.string().max(2000).optional() });

/** A connection made by OAuth, as the callback answers it (the shape GET /calendar-connections lists). */
export const OAuthCalendarConnection = z.object({
  id: z.string(),
  provider: z.enum(['caldav', 'google', 'microsoft']),
  url: z.string().nullable(),
  username: z.string().nullable(),
  status: z.enum(['active', 'failing', 'revoked']),
  calendars: z.array(z.object({ id: z.string(), name: z.string(), color: z.string().nullable(), readOnly: z.boolean(), primary: z.boolean() }).loose()),
  lastSyncedAt: z.string().nullable(),
  lastSyncError: z.string().nullable(),
});

export const OAuthCalendarConnectionResponse = z.object({ ok: z.literal(true), connection: OAuthCalendarConnection });
