import { defineEndpoint } from '@/server/http/endpoint';
import { BeginQuery, CallbackQuery, OAuthConnectionResponse, RedirectResponse } from '../contracts';
import { beginGithub, finishGithub, startGithub } from './oauth';

const tags = ['Channels'];

/** The GitHub connection of coding jobs (spec 5): start (a user), begin (the browser), callback (GitHub). */
export const githubEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/oauth/github/authorize',
    summary: 'Start connecting the user’s GitHub account for coding jobs (redirect to the begin link)',
    tags,
    auth: 'user',
    raw: true,
    response: RedirectResponse,
    errors: [400],
    handle: ({ db, actor, req }) => startGithub(db, actor, req.url),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/oauth/github/begin',
    summary: 'Where the start redirects the user’s browser: binds the connection to that browser (a cookie), then redirects to GitHub',
    tags,
    auth: 'none',
    raw: true,
    query: BeginQuery,
    response: RedirectResponse,
    errors: [400],
    handle: ({ db, query, req }) => beginGithub(db, query.state, req.url, req.headers.get('cookie')),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/oauth/github/callback',
    summary: 'Where GitHub sends the user back (the signed state, used once, in the browser that began the connection)',
    tags,
    auth: 'none',
    query: CallbackQuery,
    response: OAuthConnectionResponse,
    errors: [400, 403],
    handle: ({ db, query, req }) => finishGithub(db, query, req.url, req.headers.get('cookie')),
  }),
];
