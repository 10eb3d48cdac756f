import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { oauthConnections, rosterEntries } from '@/db/schema';
import { sealJson } from '@/server/secrets/sealed';
import { tokenDetails } from './token-details';
import type { Actor } from '@/server/access/actor';
import { visibleAssistant } from '@/server/assistants/access';
import { forbidden } from '@/server/http/errors';
import { reply } from '@/server/http/endpoint';
import { organizationFor } from '@/server/organizations/access';
import { teamFor } from '@/server/teams/access';
import type { CallbackQuery } from './contracts';
import { bindingCookieName, bindState, consumeState, issueState, type OAuthState } from './oauth-state';
import { exchangeCode, publicBase, slackConfig, teamsConfig } from './providers';

const redirect = (url: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 302, headers: { Location: url, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', ...headers } });
const callbackUrl = (requestUrl: string, provider: string) => `${publicBase(requestUrl)}/api/oauth/callback/${provider}`;
const COOKIE_PATH = '/api/oauth';

function bindingCookie(requestUrl: string, name: string, value: string, maxAge: number) {
  const secure = publicBase(requestUrl).startsWith('https:');
  return [`${name}=${value}`, `Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`, ...(secure ? ['Secure'] : [])].join('; ');
}

/**
 * Starting is an API call (a user credential, usually sent by the customer's backend), so its
 * answer may never reach the user's browser: it redirects to Steward's begin link, which the
 * browser opens, gets bound to the flow there (a cookie), and is sent on to the provider.
 */
const beginUrl = (requestUrl: string, state: string) => `${publicBase(requestUrl)}/api/oauth/begin?state=${encodeURIComponent(state)}`;

const SLACK_BOT_SCOPES = 'app_mentions:read,chat:write,im:history,im:read,im:write,users:read,users:read.email';
const SLACK_USER_SCOPES = 'identity.basic,identity.email';

/** The provider's consent page for a state, built when the browser opens the begin link. */
function authorizeUrl(state: OAuthState, token: string, requestUrl: string): string {
  const cfg = state.provider === 'slack' ? slackConfig() : teamsConfig();
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set('client_id', cfg.clientId);
  if (state.provider === 'slack') {
    url.searchParams.set(state.purpose === 'install' ? 'scope' : 'user_scope', state.purpose === 'install' ? SLACK_BOT_SCOPES : SLACK_USER_SCOPES);
  } else {
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', 'https://graph.microsoft.com/.default offline_access');
  }
  url.searchParams.set('redirect_uri', callbackUrl(requestUrl, state.provider));
  url.searchParams.set('state', token);
  return url.toString();
}

/** Slack install (bot scopes) or identity link (user scopes) for an assistant on the user's roster. */
export async function startSlack(db: Db, actor: Actor, assistantId: string, purpose: 'install' | 'link', requestUrl: string) {
  slackConfig();
  const assistant = await visibleAssistant(db, actor, assistantId);
  const [hired] = await db.select().from(rosterEntries).where(and(eq(rosterEntries.userId, actor.user!.id), eq(rosterEntries.assistantId, assistant.id)));
  if (!hired) throw forbidden('The assistant is not on your roster');
  const state = await issueState(db, { provider: 'slack', purpose, accountId: actor.accountId, userId: actor.user!.id, assistantId: assistant.id });
  return redirect(beginUrl(requestUrl, state));
}

/** A team admin or organization admin connects the account's Teams app to their team or organization. */
export async function startTeams(db: Db, actor: Actor, target: 'team' | 'org', targetId: string, requestUrl: string) {
  if (target === 'team') await teamFor(db, actor, targetId, 'admin');
  else await organizationFor(db, actor, targetId, 'admin');
  teamsConfig();
  const state = await issueState(db, { provider: 'teams', purpose: 'connect', accountId: actor.accountId, userId: actor.user?.id ?? null, target: { target, targetId } });
  return redirect(beginUrl(requestUrl, state));
}

/** The browser opens the begin link: it is bound to the flow and sent to the provider. */
export async function beginOAuth(db: Db, token: string, requestUrl: string, cookieHeader: string | null) {
  const { state, cookie } = await bindState(db, token, cookieHeader);
  return redirect(authorizeUrl(state, token, requestUrl), { 'Set-Cookie': bindingCookie(requestUrl, cookie.name, cookie.value, 600) });
}

/** The provider sends the user back here: the signed state, bound to this browser and used once, says what was being connected. */
export async function finishOAuth(db: Db, provider: 'slack' | 'teams', q: z.infer<typeof CallbackQuery>, requestUrl: string, cookieHeader: string | null) {
  const state = await consumeState(db, q.state, provider, cookieHeader);
  if (q.error || !q.code) throw forbidden(`The connection was not approved${q.error ? `: ${q.error}` : ''}`);
  const cfg = provider === 'slack' ? slackConfig() : teamsConfig();
  const tokens = await exchangeCode(cfg.tokenUrl, {
    client_id: cfg.clientId,
    client_secret: cfg.clientSecret,
    code: q.code,
    redirect_uri: callbackUrl(requestUrl, provider),
    ...(provider === 'teams' ? { grant_type: 'authorization_code' } : {}),
  });
  const [row] = await db
    .insert(oauthConnections)
    .values({
      accountId: state.accountId,
      provider,
      purpose: state.purpose,
      userId: state.userId,
      assistantId: state.assistantId ?? null,
      target: state.target ?? {},
      tokens: await sealJson(db, tokens, `oauth:${provider}`),
      details: tokenDetails(tokens),
    })
    .returning();
  const body = { ok: true as const, connection: { id: row.id, provider, purpose: row.purpose, assistant: row.assistantId, target: row.target, createdAt: row.createdAt.toISOString() } };
  return reply(200, body, { 'Set-Cookie': bindingCookie(requestUrl, bindingCookieName(state.jti), '', 0), 'Cache-Control': 'no-store' });
}
