import { z } from 'zod';
import { defineEndpoint } from '@/server/http/endpoint';
import { googlePushNotification, graphPushNotification, type CalendarPushDeps } from './push-notifications';

/*
 * The providers' push notifications for calendars (public: each proves itself by its channel's
 * token or clientState). Built with the engine's wiring, which the composition passes in.
 */

const tags = ['Calendars'];
const PushQuery = z.object({ validationToken: z.string().min(1).max(4096).optional() });

export const calendarPushEndpoints = (deps: CalendarPushDeps) => [
  defineEndpoint({
    method: 'POST',
    path: '/calendars/push/google',
    summary: 'Google Calendar push notifications (watch channels on the calendars read)',
    description:
      'Google posts here when a watched calendar’s events change: X-Goog-Channel-ID names the channel and X-Goog-Channel-Token must be its token (403 `invalid_channel_token` otherwise, and nothing is synced). 200 once the calendar’s sync is asked for (many notifications, one sync); the `sync` message that opens a channel changes nothing.',
    tags,
    auth: 'none',
    raw: true,
    response: z.unknown(),
    status: 200,
    errors: [400, 403],
    handle: ({ db, req }) => googlePushNotification(db, req, deps),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/calendars/push/microsoft',
    summary: 'Microsoft Graph change notifications for the calendars read (validation token handshake; clientState checked)',
    description:
      'With `?validationToken=` the token is answered as text/plain (200). Otherwise a changeNotificationCollection: 202 once any notification’s clientState matches its subscription (that calendar’s sync is asked for), 403 `invalid_client_state` when none does.',
    tags,
    auth: 'none',
    raw: true,
    query: PushQuery,
    response: z.unknown(),
    status: 202,
    // 200: the validation handshake's answer (text/plain).
    errors: [200, 400, 403, 413],
    handle: ({ db, query, req }) => graphPushNotification(db, req, query.validationToken, deps),
  }),
];
