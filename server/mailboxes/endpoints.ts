import { finishCalendarConnect, isCalendarState } from '@/server/calendars/oauth-connect';
import { OAuthCalendarConnectionResponse } from '@/server/calendars/oauth-contracts';
import type { MailboxProvider } from '@/db/schema';
import { defineEndpoint } from '@/server/http/endpoint';
import { startMailboxConnect, finishMailboxConnect } from './connect';
import { AuthorizeQuery, DisconnectResponse, GraphNotificationQuery, HostedConnectQuery, MailboxCallbackQuery, MailboxResponse, RedirectResponse } from './contracts';
import { hostedMailboxConnect } from './hosted';
import { graphNotifications } from './notifications';
import { disconnectMailbox, mailboxStatus } from './service';

const tags = ['Mailboxes'];

const callback = (provider: MailboxProvider, who: string) =>
  defineEndpoint({
    method: 'GET',
    path: `/oauth/callback/${provider}`,
    summary: `Where ${who} sends the user back after they connect their mailbox (the signed state, used once, in the browser that began; PKCE)`,
    description:
      'A connection started from the hosted app goes back to it (`?mailbox=connected` or `denied`); one started through the API answers with the mailbox. A calendar connection (GET /oauth/calendar/authorize) comes back here too and answers with the calendar connection (`?calendar=connected` or `denied`).',
    tags,
    auth: 'none',
    query: MailboxCallbackQuery,
    response: MailboxResponse.or(OAuthCalendarConnectionResponse),
    errors: [400, 403],
    // The same client and redirect URI connect the user's calendars: a calendar flow's state is finished there.
    handle: ({ db, query, req }) =>
      isCalendarState(query.state) ? finishCalendarConnect(db, provider, query, req.url, req.headers.get('cookie')) : finishMailboxConnect(db, provider, query, req.url, req.headers.get('cookie')),
  });

export const mailboxEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/mailbox',
    summary: 'The user’s connected mailbox (Gmail or Microsoft 365): provider, address, status, last poll; null when none',
    tags,
    auth: 'user',
    response: MailboxResponse,
    handle: ({ db, actor }) => mailboxStatus(db, actor),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/mailbox',
    summary: 'Disconnect the user’s mailbox: its tokens are deleted (Google is asked to revoke them), and their assistants no longer run on it',
    tags,
    auth: 'user',
    response: DisconnectResponse,
    handle: ({ db, actor }) => disconnectMailbox(db, actor),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/oauth/mailbox/authorize',
    summary: 'Start connecting the user’s own mailbox (redirect to /oauth/begin, for the user’s browser)',
    description: 'For a customer backend acting as the user: send the user’s browser to the returned Location. Scopes: Gmail gmail.readonly and gmail.send; Microsoft offline_access, User.Read, Mail.ReadWrite, Mail.Send.',
    tags,
    auth: 'user',
    raw: true,
    query: AuthorizeQuery,
    response: RedirectResponse,
    errors: [400],
    handle: ({ db, actor, query, req }) => startMailboxConnect(db, actor, query.provider, req.url),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/oauth/mailbox/connect',
    summary: 'The hosted app’s link to connect the signed-in person’s mailbox (their session; redirect)',
    description: 'Link to it from a hosted-app page: `/api/oauth/mailbox/connect?provider=gmail&returnTo=/settings`. Signed out: to sign-in and back. Started by another site: 403.',
    tags,
    auth: 'none',
    raw: true,
    query: HostedConnectQuery,
    response: RedirectResponse,
    errors: [400, 403, 404],
    handle: ({ db, query, req }) => hostedMailboxConnect(db, req, query),
  }),
  callback('gmail', 'Google'),
  callback('outlook', 'Microsoft'),
  defineEndpoint({
    method: 'POST',
    path: '/channels/graph/notifications',
    summary: 'Microsoft Graph change notifications for connected Microsoft 365 mailboxes (validation token handshake; clientState checked)',
    description: 'With `?validationToken=` the token is answered as text/plain (200). Otherwise a changeNotificationCollection: 202 once any notification’s clientState matches its subscription, 403 when none does. 404 while Microsoft 365 mail is not configured.',
    tags,
    auth: 'none',
    raw: true,
    query: GraphNotificationQuery,
    response: RedirectResponse,
    status: 202,
    errors: [400, 403, 404],
    handle: ({ db, query, req }) => graphNotifications(db, req, query.validationToken),
  }),
];
