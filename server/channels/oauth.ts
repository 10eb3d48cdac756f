import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { oauthConnections, rosterEntries } from '@/db/schema';
import { mailboxProviders, type oauthChatApps } from '@/db/schema/channel-names';

type OAuthChatApp = (typeof oauthChatApps)[number];
import { sealJson } from '@/server/secrets/sealed';
import { tokenDetails } from './token-details';
import type { Actor } from '@/server/access/actor';
import { visibleAssistant } from '@/server/assistants/access';
import { forbidden } from '@/server/http/errors';
import { reply } from '@/server/http/endpoint';
import { organizationFor } from '@/server/organizations/access';
import { teamFor } from '@/server/teams/access';
import type { CallbackQuery } from './contracts';
import { bindingCookieName, bindState, consumeState, issueState, pkceChallenge, pkceVerifier, type MailboxOAuthProvider, type OAuthState } from './oauth-state';
import { gmailConfig } from './gmail/config';
import { GOOGLE_CALENDAR_SCOPES, gmailAuthorizeUrl } from './gmail/oauth';
import { graphConfig } from './graph/config';
import { SLACK_BOT_SCOPES } from './slack/config';
import { GRAPH_CALENDAR_SCOPES, graphAuthorizeUrl } from './graph/oauth';
import { exchangeCode, publicBase, teamsConfig } from './providers';
import { recordSlackFlow, slackClientFor, slackFlowTarget, type SlackClient } from './slack/oauth-app';
import { teamsTenantOf } from './teams/tenant';

/** A 302 that nothing caches and that tells the next site nothing of where the browser came from. */
export const redirect = (url: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 302, headers: { Location: url, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', ...headers } });
const callbackUrl = (requestUrl: string, provider: string) => `${publicBase(requestUrl)}/api/oauth/callback/${provider}`;
const COOKIE_PATH = '/api/oauth';

export function bindingCookie(requestUrl: string, name: string, value: string, maxAge: number) {
  const secure = publicBase(requestUrl).startsWith('https:');
  return [`${name}=${value}`, `Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`, ...(secure ? ['Secure'] : [])].join('; ');
}

/**
 * Starting is an API call (a user credential, usually sent by the customer's backend), so its
 * answer may never reach the user's browser: it redirects to Steward's begin link, which the
 * browser opens, gets bound to the flow there (a cookie), and is sent on to the provider.
 */
export const beginUrl = (requestUrl: string, state: string) => `${publicBase(requestUrl)}/api/oauth/begin?state=${encodeURIComponent(state)}`;

const SLACK_USER_SCOPES = 'identity.basic,identity.email';

const isMailbox = (p: OAuthState['provider']): p is MailboxOAuthProvider => (mailboxProviders as readonly string[]).includes(p);

/** Where Google and Microsoft send the user back after connecting their mailbox. */
export const mailboxCallbackUrl = (requestUrl: string, provider: MailboxOAuthProvider) => callbackUrl(requestUrl, provider);

/**
 * The mailbox provider's consent page, with the flow's PKCE challenge (its verifier is derived
 * again at the callback). A calendar connection (purpose `calendar`) goes through the same client
 * and callback, asking for the calendar scopes instead, with the connected mailbox's address as
 * the login hint so the same account grants them.
 */
async function mailboxAuthorizeUrl(db: Db, state: OAuthState & { provider: MailboxOAuthProvider }, token: string, requestUrl: string): Promise<string> {
  const provider = state.provider;
  const calendar = state.purpose === 'calendar';
  const flow = {
    state: token,
    codeChallenge: pkceChallenge(await pkceVerifier(db, token)),
    redirectUri: mailboxCallbackUrl(requestUrl, provider),
    ...(calendar ? { scopes: provider === 'gmail' ? GOOGLE_CALENDAR_SCOPES : GRAPH_CALENDAR_SCOPES } : {}),
    ...(calendar && state.target?.loginHint ? { loginHint: state.target.loginHint } : {}),
  };
  return provider === 'gmail' ? gmailAuthorizeUrl(gmailConfig(), flow) : graphAuthorizeUrl(graphConfig(), flow);
}

/** The provider's consent page for a state, built when the browser opens the begin link (a Slack flow with the client of the app its state names). */
async function authorizeUrl(db: Db, state: OAuthState, token: string, requestUrl: string): Promise<string> {
  const cfg = state.provider === 'slack' ? await slackClientFor(db, state) : teamsConfig();
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set('client_id', cfg.clientId);
  if (state.provider === 'slack') {
    url.searchParams.set(state.purpose === 'install' ? 'scope' : 'user_scope', state.purpose === 'install' ? SLACK_BOT_SCOPES.join(',') : SLACK_USER_SCOPES);
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
  const assistant = await visibleAssistant(db, actor, assistantId);
  const [hired] = await db.select().from(rosterEntries).where(and(eq(rosterEntries.userId, actor.user!.id), eq(rosterEntries.assistantId, assistant.id)));
  if (!hired) throw forbidden('The assistant is not on your roster');
  // The assistant's own app once its credentials are in (else the deployment's client): named in the signed state.
  const target = await slackFlowTarget(db, actor.user!.id, assistant);
  const state = await issueState(db, { provider: 'slack', purpose, accountId: actor.accountId, userId: actor.user!.id, assistantId: assistant.id, target });
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
  const location = isMailbox(state.provider) ? await mailboxAuthorizeUrl(db, { ...state, provider: state.provider }, token, requestUrl) : await authorizeUrl(db, state, token, requestUrl);
  return redirect(location, { 'Set-Cookie': bindingCookie(requestUrl, cookie.name, cookie.value, 600) });
}

/** The provider sends the user back here: the signed state, bound to this browser and used once, says what was being connected. */
export async function finishOAuth(db: Db, provider: OAuthChatApp, q: z.infer<typeof CallbackQuery>, requestUrl: string, cookieHeader: string | null) {
  const state = await consumeState(db, q.state, provider, cookieHeader);
  if (q.error || !q.code) throw forbidden(`The connection was not approved${q.error ? `: ${q.error}` : ''}`);
  const cfg = provider === 'slack' ? await slackClientFor(db, state) : teamsConfig();
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
      details: provider === 'teams' ? { ...tokenDetails(tokens), ...teamsTenantOf(tokens) } : tokenDetails(tokens),
    })
    .returning();
  if (provider === 'slack') await recordSlackFlow(db, state, cfg as SlackClient, tokens, row.id);
  const body = { ok: true as const, connection: { id: row.id, provider, purpose: row.purpose, assistant: row.assistantId, target: row.target, createdAt: row.createdAt.toISOString() } };
  return reply(200, body, { 'Set-Cookie': bindingCookie(requestUrl, bindingCookieName(state.jti), '', 0), 'Cache-Control': 'no-store' });
}
