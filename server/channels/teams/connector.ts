import { z } from 'zod';
import type { Delivery } from '../message';
import { ProviderHttpError } from '../providers';
import { jsonOf, providerRequest, type ProviderAnswer } from '../slack/provider-http';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';
import { BOT_FRAMEWORK_SCOPE, type TeamsBotConfig } from './config';

/*
 * The Bot Connector REST API (Bot Framework v3), as the bot: a token from the client-credentials
 * grant at STEWARD_TEAMS_TOKEN_URL (cached until five minutes before it expires), then
 * conversations/{id}/activities to send, activities/{id} to reply or (PUT) update, and
 * conversations/{id}/members/{id} to read a member (their tenant directory's email). The base is
 * the activity's serviceUrl, which the Connector's signed token vouched for. A send that got no
 * answer once it may have left is `unknown`, never sent again blindly.
 */

const TokenAnswer = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().default(3600) }).loose();
const ResourceResponse = z.object({ id: z.string().optional() }).loose();
export const ChannelAccount = z.object({ id: z.string(), name: z.string().optional(), aadObjectId: z.string().optional(), email: z.string().optional(), userPrincipalName: z.string().optional(), tenantId: z.string().optional() }).loose();
export type ChannelAccount = z.infer<typeof ChannelAccount>;

let token: { value: string; until: number; appId: string } | null = null;
let fetching: Promise<string> | null = null;

/** The bot's Connector token (client credentials), cached. */
export async function connectorToken(cfg: TeamsBotConfig): Promise<string> {
  if (token && token.appId === cfg.appId && Date.now() < token.until) return token.value;
  fetching ??= (async () => {
    const answer = await providerRequest('Bot Framework token endpoint', cfg.tokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: cfg.appId, client_secret: cfg.clientSecret, scope: BOT_FRAMEWORK_SCOPE }).toString(),
      timeoutMs: TOTAL_MS.token,
    });
    const parsed = TokenAnswer.safeParse(jsonOf(answer));
    if (answer.status !== 200 || !parsed.success) throw new ProviderHttpError('Bot Framework token endpoint', answer.status, 'token_refused', `the token endpoint refused the bot's credentials (HTTP ${answer.status})`, false);
    token = { value: parsed.data.access_token, until: Date.now() + Math.max(60, parsed.data.expires_in - 300) * 1000, appId: cfg.appId };
    return token.value;
  })().finally(() => (fetching = null));
  return fetching;
}

const base = (serviceUrl: string) => serviceUrl.replace(/\/+$/, '');
const conv = (id: string) => encodeURIComponent(id);

async function call(cfg: TeamsBotConfig, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<ProviderAnswer> {
  const bearer = await connectorToken(cfg);
  return providerRequest('Bot Connector', url, {
    method,
    headers: { Authorization: `Bearer ${bearer}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function send(cfg: TeamsBotConfig, method: 'POST' | 'PUT', url: string, activity: Record<string, unknown>, what: string): Promise<Delivery> {
  let answer: ProviderAnswer;
  try {
    answer = await call(cfg, method, url, activity);
  } catch (e) {
    const reached = e instanceof ProviderHttpError ? e.reached : true;
    const reason = `Bot Connector ${what}: ${(e as Error).message}`;
    return reached ? { state: 'unknown', providerMessageId: null, reason } : { state: 'failed', providerMessageId: null, reason };
  }
  if (answer.status >= 200 && answer.status < 300) {
    const id = ResourceResponse.safeParse(jsonOf(answer));
    return { state: 'accepted', providerMessageId: (id.success && id.data.id) || null };
  }
  const reason = `Bot Connector ${what}: HTTP ${answer.status}`;
  // 5xx: the Connector may have taken it; 4xx (and 429): it did not.
  return answer.status >= 500 ? { state: 'unknown', providerMessageId: null, reason } : { state: 'failed', providerMessageId: null, reason };
}

export type TeamsActivity = { type: 'message'; text?: string; textFormat?: 'plain' | 'markdown'; attachments?: Array<{ contentType: string; content: unknown; name?: string; contentUrl?: string }>; replyToId?: string };

export const sendToConversation = (cfg: TeamsBotConfig, serviceUrl: string, conversationId: string, activity: TeamsActivity) =>
  send(cfg, 'POST', `${base(serviceUrl)}/v3/conversations/${conv(conversationId)}/activities`, activity, 'send');

export const replyToActivity = (cfg: TeamsBotConfig, serviceUrl: string, conversationId: string, activityId: string, activity: TeamsActivity) =>
  send(cfg, 'POST', `${base(serviceUrl)}/v3/conversations/${conv(conversationId)}/activities/${encodeURIComponent(activityId)}`, { ...activity, replyToId: activityId }, 'reply');

export const updateActivity = (cfg: TeamsBotConfig, serviceUrl: string, conversationId: string, activityId: string, activity: TeamsActivity) =>
  send(cfg, 'PUT', `${base(serviceUrl)}/v3/conversations/${conv(conversationId)}/activities/${encodeURIComponent(activityId)}`, { ...activity, id: activityId }, 'update');

/** One member of a conversation as the tenant's directory describes them (email, UPN, object id), or null. */
export async function conversationMember(cfg: TeamsBotConfig, serviceUrl: string, conversationId: string, memberId: string): Promise<ChannelAccount | null> {
  try {
    const answer = await call(cfg, 'GET', `${base(serviceUrl)}/v3/conversations/${conv(conversationId)}/members/${encodeURIComponent(memberId)}`);
    if (answer.status !== 200) return null;
    const parsed = ChannelAccount.safeParse(jsonOf(answer));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
