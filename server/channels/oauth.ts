import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { oauthConnections, rosterEntries } from '@/db/schema';
import { sealJson } from '@/server/secrets/sealed';
import { tokenDetails } from './token-details';
import type { Actor } from '@/server/access/actor';
import { visibleAssistant } from '@/server/assistants/visibility';
import { forbidden } from '@/server/http/errors';
import { organizationFor } from '@/server/organizations/access';
import { teamFor } from '@/server/teams/access';
import { readState, signState, type OAuthState } from './oauth-state';
import { exchangeCode, publicBase, slackConfig, teamsConfig } from './providers';

export const SlackStartQuery = z.object({ assistantId: z.string().min(1, 'is required') });
export const TeamsStartQuery = z.object({ target: z.enum(['team', 'org']), targetId: z.string().min(1, 'is required') });
export const CallbackQuery = z.object({ code: z.string().min(1).optional(), state: z.string().min(1, 'is required'), error: z.string().optional() });
export const CallbackParams = z.object({ provider: z.enum(['slack', 'teams']) });

const redirect = (url: string) => new Response(null, { status: 302, headers: { Location: url, 'Cache-Control': 'no-store' } });
const callbackUrl = (requestUrl: string, provider: string) => `${publicBase(requestUrl)}/api/oauth/callback/${provider}`;

/** Slack install (bot scopes) or identity link (user scopes) for an assistant on the user's roster. */
export async function startSlack(db: Db, actor: Actor, assistantId: string, purpose: 'install' | 'link', requestUrl: string) {
  const cfg = slackConfig();
  const assistant = await visibleAssistant(db, actor, assistantId);
  const [hired] = await db.select().from(rosterEntries).where(and(eq(rosterEntries.userId, actor.user!.id), eq(rosterEntries.assistantId, assistant.id)));
  if (!hired) throw forbidden('The assistant is not on your roster');
  const state = await signState(db, { provider: 'slack', purpose, accountId: actor.accountId, userId: actor.user!.id, assistantId: assistant.id });
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set(purpose === 'install' ? 'scope' : 'user_scope', purpose === 'install' ? 'app_mentions:read,chat:write,im:history,im:read,im:write,users:read,users:read.email' : 'identity.basic,identity.email');
  url.searchParams.set('redirect_uri', callbackUrl(requestUrl, 'slack'));
  url.searchParams.set('state', state);
  return redirect(url.toString());
}

/** A team admin or organization admin connects the account's Teams app to their team or organization. */
export async function startTeams(db: Db, actor: Actor, target: 'team' | 'org', targetId: string, requestUrl: string) {
  if (target === 'team') await teamFor(db, actor, targetId, 'admin');
  else await organizationFor(db, actor, targetId, 'admin');
  const cfg = teamsConfig();
  const state = await signState(db, { provider: 'teams', purpose: 'connect', accountId: actor.accountId, userId: actor.user?.id ?? null, target: { target, targetId } });
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'https://graph.microsoft.com/.default offline_access');
  url.searchParams.set('redirect_uri', callbackUrl(requestUrl, 'teams'));
  url.searchParams.set('state', state);
  return redirect(url.toString());
}

/** The provider sends the user back here: the signed state says what was being connected; the code is exchanged and the connection stored. */
export async function finishOAuth(db: Db, provider: 'slack' | 'teams', q: z.infer<typeof CallbackQuery>, requestUrl: string) {
  const state: OAuthState = await readState(db, q.state);
  if (state.provider !== provider) throw forbidden('state: issued for another provider');
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
  return { ok: true as const, connection: { id: row.id, provider, purpose: row.purpose, assistant: row.assistantId, target: row.target, createdAt: row.createdAt.toISOString() } };
}
