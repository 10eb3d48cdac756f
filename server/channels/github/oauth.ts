import type { z } from 'zod';
import type { Db } from '@/db/client';
import { oauthConnections } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { reply } from '@/server/http/endpoint';
import { badRequest, forbidden } from '@/server/http/errors';
import { sealJson } from '@/server/secrets/sealed';
import type { CallbackQuery } from '../contracts';
import { bindingCookie, redirect } from '../oauth';
import { bindingCookieName, bindState, consumeState, issueState, type OAuthState } from '../oauth-state';
import { publicBase } from '../providers';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';
import { tokenDetails } from '../token-details';
import { githubUser } from './api';
import { GITHUB_PURPOSE } from './connection';
import { GITHUB_SCOPES, githubConfig } from './config';

/*
 * A user connects their GitHub account for coding jobs through the OAuth plumbing Slack and
 * Teams use (oauth-state.ts): a signed, single-use state recorded in oauth_flows, bound by a
 * cookie to the browser that opens the begin link, accepted once at the callback; the code is
 * exchanged at STEWARD_GITHUB_URL's token endpoint and the token response sealed (JWE, purpose
 * `oauth:github`) in oauth_connections. Its own three paths under /api/oauth/github/ keep the
 * shared begin and callback routes as they are.
 */

/** oauth-state.ts names the providers it was written for; GitHub rides the same state. */
const GITHUB = 'github' as const satisfies OAuthState['provider'];

export const githubCallbackUrl = (requestUrl: string) => `${publicBase(requestUrl)}/api/oauth/github/callback`;

/** GET /oauth/github/authorize (an API call): a redirect to the begin link, which the user's browser opens. */
export async function startGithub(db: Db, actor: Actor, requestUrl: string) {
  const user = requireUser(actor);
  githubConfig();
  const state = await issueState(db, { provider: GITHUB, purpose: GITHUB_PURPOSE, accountId: actor.accountId, userId: user.id });
  return redirect(`${publicBase(requestUrl)}/api/oauth/github/begin?state=${encodeURIComponent(state)}`);
}

/** GET /oauth/github/begin: the browser is bound to the flow and sent to GitHub's consent page. */
export async function beginGithub(db: Db, token: string, requestUrl: string, cookieHeader: string | null) {
  const { state, cookie: binding } = await bindState(db, token, cookieHeader);
  if (state.provider !== GITHUB) throw badRequest('state: issued for another provider');
  const cfg = githubConfig();
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('redirect_uri', githubCallbackUrl(requestUrl));
  url.searchParams.set('scope', GITHUB_SCOPES);
  url.searchParams.set('state', token);
  url.searchParams.set('allow_signup', 'false');
  return redirect(url.toString(), { 'Set-Cookie': bindingCookie(requestUrl, binding.name, binding.value, 600) });
}

/** GitHub answers form-encoded unless asked for JSON; an error comes back with status 200. */
async function exchange(code: string, requestUrl: string): Promise<Record<string, unknown>> {
  const cfg = githubConfig();
  let res: Response;
  try {
    res = await fetch(cfg.tokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ client_id: cfg.clientId, client_secret: cfg.clientSecret, code, redirect_uri: githubCallbackUrl(requestUrl) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(TOTAL_MS.github),
    });
  } catch {
    throw badRequest('GitHub could not be reached to finish the connection', {}, 'provider_unreachable');
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || body.error || typeof body.access_token !== 'string') throw badRequest(`GitHub refused the code: ${String(body.error ?? res.status)}`, {}, 'oauth_exchange_failed');
  return body;
}

/** GET /oauth/github/callback: the state, bound to this browser and used once, says whose connection it is. */
export async function finishGithub(db: Db, q: z.infer<typeof CallbackQuery>, requestUrl: string, cookieHeader: string | null) {
  const state = await consumeState(db, q.state, GITHUB, cookieHeader);
  if (q.error || !q.code) throw forbidden(`The connection was not approved${q.error ? `: ${q.error}` : ''}`);
  const tokens = await exchange(q.code, requestUrl);
  // Who connected, shown with the connection; the code is spent already, so GitHub's API being down does not lose the connection.
  const who = await githubUser(tokens.access_token as string).catch(() => null);
  const [row] = await db
    .insert(oauthConnections)
    .values({
      accountId: state.accountId,
      provider: 'github',
      purpose: GITHUB_PURPOSE,
      userId: state.userId,
      tokens: await sealJson(db, tokens, 'oauth:github'),
      details: { ...tokenDetails(tokens), ...(who ? { login: who.login, id: who.id } : {}) },
    })
    .returning();
  const body = { ok: true as const, connection: { id: row.id, provider: 'github', purpose: row.purpose, assistant: null, target: row.target, createdAt: row.createdAt.toISOString() } };
  return reply(200, body, { 'Set-Cookie': bindingCookie(requestUrl, bindingCookieName(state.jti), '', 0), 'Cache-Control': 'no-store' });
}
