import { RedirectResponse } from '@/server/channels/contracts';
import { defineEndpoint } from '@/server/http/endpoint';
import { CalendarAuthorizeQuery, CalendarHostedConnectQuery } from './oauth-contracts';
import { startCalendarConnect } from './oauth-connect';
import { hostedCalendarConnect } from './oauth-hosted';

/*
 * Starting a Google or Microsoft 365 calendar connection. The provider sends the browser back to
 * the mailbox's own callback (/oauth/callback/gmail, /oauth/callback/outlook), which finishes a
 * calendar flow here (server/calendars/oauth-connect.ts).
 */

const tags = ['Calendars'];

export const calendarOAuthEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/oauth/calendar/authorize',
    summary: 'Start connecting the user’s Google or Microsoft 365 calendars (redirect to /oauth/begin, for the user’s browser)',
    description:
      'For a customer backend acting as the user: send the user’s browser to the returned Location. The same OAuth client as the mailbox (Google: `https://www.googleapis.com/auth/calendar`, with the scopes already granted kept; Microsoft: `Calendars.ReadWrite`); a user whose mailbox is connected only consents to calendars. The provider sends the browser back to /oauth/callback/gmail or /oauth/callback/outlook, which answers `{ok, connection}`.',
    tags,
    auth: 'user',
    raw: true,
    query: CalendarAuthorizeQuery,
    response: RedirectResponse,
    errors: [400],
    handle: ({ db, actor, query, req }) => startCalendarConnect(db, actor, query.provider, req.url),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/oauth/calendar/connect',
    summary: 'The hosted app’s link to connect the signed-in person’s Google or Microsoft 365 calendars (their session; redirect)',
    description: 'Link to it from a hosted-app page: `/api/oauth/calendar/connect?provider=google&returnTo=/settings`; the browser comes back with `?calendar=connected` or `denied`. Signed out: to sign-in and back. Started by another site: 403.',
    tags,
    auth: 'none',
    raw: true,
    query: CalendarHostedConnectQuery,
    response: RedirectResponse,
    errors: [400, 403, 404],
    handle: ({ db, query, req }) => hostedCalendarConnect(db, req, query),
  }),
];
