import { z } from 'zod';
import { AssistantParams } from '@/server/assistants/contracts';
import { defineEndpoint, reply } from '@/server/http/endpoint';
import { BeginQuery, beginOAuth, CallbackParams, CallbackQuery, finishOAuth, SlackStartQuery, startSlack, startTeams, TeamsStartQuery } from './oauth';
import { myPhoneLineRequest, MyPhoneLineResponse, PhoneLineRequestBody, PhoneLineRequestResponse, requestPhoneLine } from './phone-lines';
import { createSlackApp, CreateSlackAppBody, SlackAppResponse } from './slack-apps';

const tags = ['Channels'];
const redirectResponse = z.unknown();

export const channelEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/phone-line-requests',
    summary: 'Ask for phone lines for the primary assistant (one pending request per user)',
    tags,
    auth: 'user',
    body: PhoneLineRequestBody,
    response: PhoneLineRequestResponse,
    status: 201,
    handle: async ({ db, actor, body }) => reply(201, await requestPhoneLine(db, actor, body)),
  }),
  defineEndpoint({ method: 'GET', path: '/phone-line-requests/mine', summary: 'The user’s latest phone-line request', tags, auth: 'user', response: MyPhoneLineResponse, handle: ({ db, actor }) => myPhoneLineRequest(db, actor) }),
  defineEndpoint({
    method: 'POST',
    path: '/assistants/{assistantId}/slack-apps',
    summary: 'Create the assistant’s Slack app and its manifest (201 new, 200 existing)',
    tags,
    auth: 'any',
    params: AssistantParams,
    body: CreateSlackAppBody,
    response: SlackAppResponse,
    status: 201,
    errors: [403, 404],
    handle: async ({ db, actor, params, body, req }) => {
      const out = await createSlackApp(db, actor, params.assistantId, body, req.url);
      return reply(out.created ? 201 : 200, out.body);
    },
  }),
  defineEndpoint({ method: 'GET', path: '/oauth/slack/assistant/authorize', summary: 'Start installing an assistant’s Slack app (redirect)', tags, auth: 'user', raw: true, query: SlackStartQuery, response: redirectResponse, errors: [403, 404], handle: ({ db, actor, query, req }) => startSlack(db, actor, query.assistantId, 'install', req.url) }),
  defineEndpoint({ method: 'GET', path: '/oauth/slack/assistant/link', summary: 'Start linking the user’s Slack identity (redirect)', tags, auth: 'user', raw: true, query: SlackStartQuery, response: redirectResponse, errors: [403, 404], handle: ({ db, actor, query, req }) => startSlack(db, actor, query.assistantId, 'link', req.url) }),
  defineEndpoint({ method: 'GET', path: '/oauth/teams/authorize', summary: 'Start connecting the Teams app to a team or organization (redirect)', tags, auth: 'any', raw: true, query: TeamsStartQuery, response: redirectResponse, errors: [403, 404], handle: ({ db, actor, query, req }) => startTeams(db, actor, query.target, query.targetId, req.url) }),
  defineEndpoint({
    method: 'GET',
    path: '/oauth/begin',
    summary: 'Where a start redirects the user’s browser: binds the connection to that browser (a cookie), then redirects to the provider',
    tags,
    auth: 'none',
    raw: true,
    query: BeginQuery,
    response: redirectResponse,
    errors: [400],
    handle: ({ db, query, req }) => beginOAuth(db, query.state, req.url, req.headers.get('cookie')),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/oauth/callback/{provider}',
    summary: 'Where Slack and Microsoft send the user back (the signed state, used once, in the browser that began the connection)',
    tags,
    auth: 'none',
    params: CallbackParams,
    query: CallbackQuery,
    response: z.object({ ok: z.literal(true), connection: z.object({ id: z.string(), provider: z.string(), purpose: z.string(), assistant: z.string().nullable(), target: z.record(z.string(), z.unknown()), createdAt: z.string() }) }),
    errors: [400, 403],
    handle: ({ db, params, query, req }) => finishOAuth(db, params.provider, query, req.url, req.headers.get('cookie')),
  }),
];
