import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { jsonOf, providerRequest } from '../twilio/http';

/*
 * iMessage through Sendblue (docs.sendblue.com): a documented HTTP API on dedicated numbers, with
 * group conversations. Sends are POST /api/send-message (one person) and /api/send-group-message
 * (a group), JSON, with the key pair in the sb-api-key-id / sb-api-secret-key headers; received
 * messages and status callbacks are JSON posts that carry the webhook secret set in Sendblue's
 * dashboard in the `sb-signing-secret` header. Configured by SENDBLUE_API_KEY,
 * SENDBLUE_API_SECRET and SENDBLUE_WEBHOOK_SECRET (STEWARD_SENDBLUE_API_URL points elsewhere);
 * without them iMessage is off. Sendblue signs nothing with a timestamp: a replay is recognised
 * by its message_handle.
 */

export type SendblueConfig = { apiKey: string; apiSecret: string; webhookSecret: string | null; apiUrl: string };

export function sendblueConfig(env: Record<string, string | undefined> = process.env): SendblueConfig | null {
  const apiKey = env.SENDBLUE_API_KEY?.trim();
  const apiSecret = env.SENDBLUE_API_SECRET?.trim();
  if (!apiKey || !apiSecret) return null;
  return { apiKey, apiSecret, webhookSecret: env.SENDBLUE_WEBHOOK_SECRET?.trim() || null, apiUrl: (env.STEWARD_SENDBLUE_API_URL?.trim() || 'https://api.sendblue.co').replace(/\/+$/, '') };
}

/** The webhook secret Sendblue sends back, compared in constant time (no secret configured: nothing is accepted). */
export function sendblueSecretMatches(config: SendblueConfig, header: string | null): boolean {
  if (!config.webhookSecret || !header) return false;
  const a = Buffer.from(config.webhookSecret);
  const b = Buffer.from(header);
  return a.length === b.length && timingSafeEqual(a, b);
}

const Number164 = z.string().regex(/^\+[1-9]\d{6,14}$/);

/** A received message (Sendblue's "Receiving messages"). */
export const SendblueInbound = z
  .object({
    message_handle: z.string().min(1).max(200),
    content: z.string().max(16_000).nullable().default(''),
    is_outbound: z.literal(false),
    from_number: Number164,
    to_number: Number164.optional(),
    sendblue_number: Number164.optional(),
    media_url: z.string().max(2048).nullable().optional(),
    group_id: z.string().max(200).nullable().optional(),
    participants: z.array(Number164).max(50).nullable().optional(),
    opted_out: z.boolean().nullable().optional(),
    service: z.string().max(40).nullable().optional(),
  })
  .loose();
export type SendblueInbound = z.infer<typeof SendblueInbound>;

/** A status callback of a message Steward sent. */
export const SendblueStatus = z
  .object({
    message_handle: z.string().min(1).max(200),
    status: z.string().min(1).max(40),
    is_outbound: z.literal(true).optional(),
    error_code: z.union([z.number(), z.string()]).nullable().optional(),
    error_message: z.string().max(1000).nullable().optional(),
  })
  .loose();
export type SendblueStatus = z.infer<typeof SendblueStatus>;

const SendAnswer = z.object({ message_handle: z.string().min(1), status: z.string().optional(), error_message: z.string().nullable().optional() }).loose();

export type SendblueSend = { ok: true; handle: string; status: string } | { ok: false; definite: boolean; reason: string };

export async function sendblueSend(
  c: SendblueConfig,
  m: { from: string; to: string | null; groupId?: string | null; content: string; statusCallback: string; mediaUrl?: string | null },
): Promise<SendblueSend> {
  const group = Boolean(m.groupId);
  // A file goes as the one media_url of a send to one person, with the words (media.ts); groups carry none through Steward.
  const body = group
    ? { from_number: m.from, group_id: m.groupId, content: m.content, status_callback: m.statusCallback }
    : { from_number: m.from, number: m.to, content: m.content, status_callback: m.statusCallback, ...(m.mediaUrl ? { media_url: m.mediaUrl } : {}) };
  const a = await providerRequest({
    method: 'POST',
    url: new URL(`${c.apiUrl}/api/${group ? 'send-group-message' : 'send-message'}`),
    headers: { 'sb-api-key-id': c.apiKey, 'sb-api-secret-key': c.apiSecret, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  if (a.status === null) return { ok: false, definite: !a.reached, reason: a.reached ? `Sendblue's answer was lost (${a.error}): the message may or may not have been sent` : `Sendblue could not be reached: ${a.error}` };
  if (a.status >= 500) return { ok: false, definite: false, reason: `Sendblue answered ${a.status}: the message may or may not have been sent` };
  const sent = SendAnswer.safeParse(jsonOf(a));
  if (a.status >= 200 && a.status < 300 && sent.success && sent.data.status !== 'ERROR') return { ok: true, handle: sent.data.message_handle, status: (sent.data.status ?? 'QUEUED').toLowerCase() };
  const answer = jsonOf(a) as { error_message?: unknown; message?: unknown } | null;
  const why = sent.success ? sent.data.error_message : (answer?.error_message ?? answer?.message);
  return { ok: false, definite: true, reason: `Sendblue refused it (${a.status}${why ? `: ${String(why).slice(0, 300)}` : ''})` };
}

const EvaluateAnswer = z.object({ number: z.string().optional(), service: z.string().min(1).max(40) }).loose();

/** Whether a number uses iMessage: `imessage` true or false, or why Sendblue could not say. */
export type SendblueEvaluation = { ok: true; imessage: boolean } | { ok: false; reason: string };

/**
 * Sendblue's number lookup (its "evaluate service", now called the Lookup API): GET
 * /api/evaluate-service?number=<E.164> with the key pair, answering `{number, service}` where
 * service is `iMessage` or `SMS`. Lookups have their own small hourly and daily limits (and a
 * plan that includes them): a refusal or an unreadable answer leaves the number unknown.
 */
export async function sendblueEvaluateService(c: SendblueConfig, number: string): Promise<SendblueEvaluation> {
  const url = new URL(`${c.apiUrl}/api/evaluate-service`);
  url.searchParams.set('number', number);
  const a = await providerRequest({ method: 'GET', url, headers: { 'sb-api-key-id': c.apiKey, 'sb-api-secret-key': c.apiSecret, Accept: 'application/json' } });
  if (a.status === null) return { ok: false, reason: `Sendblue could not be reached: ${a.error}` };
  const parsed = EvaluateAnswer.safeParse(jsonOf(a));
  if (a.status < 200 || a.status >= 300 || !parsed.success) return { ok: false, reason: `Sendblue answered ${a.status} to the number lookup` };
  const service = parsed.data.service.toLowerCase();
  if (service === 'imessage') return { ok: true, imessage: true };
  if (service === 'sms') return { ok: true, imessage: false };
  return { ok: false, reason: `Sendblue named an unknown service (${parsed.data.service.slice(0, 40)})` };
}
