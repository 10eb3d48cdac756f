import { z } from 'zod';
import type { Delivery } from '../message';
import { ProviderHttpError } from '../providers';
import { slackApiBase, slackTokenUrl } from './config';
import { OAuthV2Answer, PostMessageAnswer, UsersInfoAnswer, WebApiAnswer } from './contracts';
import { jsonOf, providerRequest } from './provider-http';

/*
 * The few Slack Web API methods Steward calls (at STEWARD_SLACK_API_URL): chat.postMessage,
 * chat.update, chat.postEphemeral, users.info, users.lookupByEmail, and oauth.v2.access at SLACK_OAUTH_TOKEN_URL.
 * Slack answers HTTP 200 with `ok: false` and an error code when it refuses; a refusal means the
 * message was not posted. No answer at all, once the request may have left, means `unknown`:
 * Slack has no idempotency key, so a send is never repeated blindly.
 */

export type Block = Record<string, unknown>;
export type SlackMessage = { channel: string; text: string; threadTs?: string | null; blocks?: Block[] };

export type Call = { ok: true; body: Record<string, unknown> } | { ok: false; error: string; reached: boolean; status: number | null };

/** One Web API method; `form` sends it form-encoded (methods documented that way). */
export async function callMethod(method: string, token: string, body: Record<string, unknown>, form = false): Promise<Call> {
  const url = `${slackApiBase()}/${method}`;
  try {
    const answer = await providerRequest('Slack', url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json; charset=utf-8',
      },
      body: form ? new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString() : JSON.stringify(body),
    });
    // 429: rate limited, nothing was done (Retry-After says when to come back).
    if (answer.status === 429) return { ok: false, error: 'ratelimited', reached: false, status: 429 };
    const parsed = WebApiAnswer.safeParse(jsonOf(answer));
    if (!parsed.success) return { ok: false, error: `unexpected answer (HTTP ${answer.status})`, reached: answer.status < 400 || answer.status >= 500, status: answer.status };
    if (!parsed.data.ok) return { ok: false, error: parsed.data.error ?? 'unknown_error', reached: false, status: answer.status };
    return { ok: true, body: parsed.data as Record<string, unknown> };
  } catch (e) {
    const err = e as ProviderHttpError;
    return { ok: false, error: err.message, reached: err instanceof ProviderHttpError ? err.reached : true, status: null };
  }
}

export const deliveryOf = (call: Call, what: string): Delivery => {
  if (call.ok) {
    const posted = PostMessageAnswer.safeParse(call.body);
    return { state: 'accepted', providerMessageId: posted.success ? `${posted.data.channel}/${posted.data.ts}` : null };
  }
  const reason = `Slack ${what}: ${call.error}`;
  return call.reached ? { state: 'unknown', providerMessageId: null, reason } : { state: 'failed', providerMessageId: null, reason };
};

/** chat.postMessage; the Delivery's providerMessageId is `<channel>/<ts>` of the posted message. */
export async function postMessage(token: string, m: SlackMessage): Promise<Delivery> {
  const call = await callMethod('chat.postMessage', token, {
    channel: m.channel,
    text: m.text,
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    unfurl_links: false,
    unfurl_media: false,
  });
  return deliveryOf(call, 'chat.postMessage');
}

/** chat.update of a message the bot posted (a progress message, an approval card's outcome). */
export async function updateMessage(token: string, channel: string, ts: string, text: string, blocks?: Block[]): Promise<Delivery> {
  const call = await callMethod('chat.update', token, { channel, ts, text, ...(blocks ? { blocks } : { blocks: [] }) });
  return call.ok ? { state: 'accepted', providerMessageId: `${channel}/${ts}` } : deliveryOf(call, 'chat.update');
}

/** chat.postEphemeral: a line only `user` sees (a refused button press). */
export async function postEphemeral(token: string, channel: string, user: string, text: string): Promise<Delivery> {
  const call = await callMethod('chat.postEphemeral', token, { channel, user, text });
  return call.ok ? { state: 'accepted', providerMessageId: null } : deliveryOf(call, 'chat.postEphemeral');
}

export type SlackUser = z.infer<typeof UsersInfoAnswer>['user'];

/** users.info (form-encoded, as Slack documents it): a person's name, and their email with users:read.email. */
export async function usersInfo(token: string, user: string): Promise<SlackUser | null> {
  const call = await callMethod('users.info', token, { user }, true);
  if (!call.ok) return null;
  const parsed = UsersInfoAnswer.safeParse(call.body);
  return parsed.success ? parsed.data.user : null;
}

/** users.lookupByEmail (form-encoded; needs users:read.email): the workspace member with that address, if any. */
export async function usersLookupByEmail(token: string, email: string): Promise<SlackUser | null> {
  const call = await callMethod('users.lookupByEmail', token, { email }, true);
  if (!call.ok) return null;
  const parsed = UsersInfoAnswer.safeParse(call.body);
  return parsed.success ? parsed.data.user : null;
}

export type OAuthV2 = z.infer<typeof OAuthV2Answer> & Record<string, unknown>;

/** oauth.v2.access: exchanges an authorization code for the app's tokens (client id and secret in the form, as Slack allows). */
export async function oauthV2Access(params: { clientId: string; clientSecret: string; code: string; redirectUri: string }): Promise<{ ok: true; answer: OAuthV2 } | { ok: false; error: string }> {
  try {
    const answer = await providerRequest('Slack', slackTokenUrl(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: params.clientId, client_secret: params.clientSecret, code: params.code, redirect_uri: params.redirectUri }).toString(),
    });
    const body = jsonOf(answer);
    const parsed = OAuthV2Answer.safeParse(body);
    if (parsed.success) return { ok: true, answer: parsed.data as OAuthV2 };
    const error = (body as { error?: unknown } | null)?.error;
    return { ok: false, error: typeof error === 'string' ? error : `HTTP ${answer.status}` };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}
