import { z } from 'zod';
import type { Db } from '@/db/client';
import { sendblueConfig, sendblueSecretMatches, SendblueInbound, SendblueStatus } from '@/server/channels/imessage/sendblue';
import type { ChannelAttachment } from '@/server/channels/message';
import { downloadMedia } from '@/server/channels/twilio/api';
import { twilioWebhookConfig } from '@/server/channels/twilio/config';
import { providerRequest } from '@/server/channels/twilio/http';
import { keywordOf } from '@/server/channels/twilio/keywords';
import { addressOf, InboundMessageParams, mediaOf, StatusParams } from '@/server/channels/twilio/payloads';
import { validTwilioSignature } from '@/server/channels/twilio/signature';
import { defineEndpoint } from '@/server/http/endpoint';
import { AppError, badRequest, forbidden, invalidFields, notFound } from '@/server/http/errors';
import { publicOrigin } from '@/server/http/public-origin';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { receiveText } from './texts-inbound';
import { applyTextStatus, textStatusOf } from './texts-status';

/*
 * The providers' webhooks for texts (spec 5, Provider webhooks), served by the kernel without a
 * credential and verified here before anything is read or stored:
 * - Twilio (POST /channels/twilio/messages and /status): X-Twilio-Signature over
 *   STEWARD_PUBLIC_URL + the request's path and query and the posted parameters (never the Host
 *   header). Unsigned or wrongly signed: 403, nothing stored. Twilio's signature has no
 *   timestamp: a replay is recognised by its MessageSid (inbound) or changes nothing (status only
 *   moves forward).
 * - Sendblue (POST /channels/sendblue/messages and /status): the webhook secret in
 *   `sb-signing-secret`.
 * A provider without credentials is off: its paths answer 404.
 */

const MAX_BODY = 256 * 1024;
const MAX_MEDIA_BYTES = 5 * 1024 * 1024;
const TWIML_EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

const twiml = (status = 200) => new Response(TWIML_EMPTY, { status, headers: { 'Content-Type': 'text/xml; charset=utf-8', 'Cache-Control': 'no-store' } });
const noContent = () => new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });

async function bodyOf(req: ApiRequest): Promise<string> {
  const text = await req.text();
  if (text.length > MAX_BODY) throw new AppError(413, 'payload_too_large', 'The webhook body is too large');
  return text;
}

/** A schema's refusal as 400 naming each field. */
export function parsed<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw invalidFields(r.error.issues.map((i) => ({ field: i.path.join('.') || 'body', problem: i.message })));
  return r.data;
}

/** The URL Twilio was given for this path (the public origin, never the Host header) with the query it called. */
function signedUrl(req: ApiRequest): string {
  const u = new URL(req.url, publicOrigin().origin);
  return `${publicOrigin().origin}${u.pathname}${u.search}`;
}

/** A Twilio webhook, verified: its parameters. 404 while Twilio is off, 403 for a missing or wrong signature. */
export async function verifiedTwilio(req: ApiRequest) {
  const config = twilioWebhookConfig();
  if (!config) throw notFound('Twilio webhooks');
  const params = [...new URLSearchParams(await bodyOf(req)).entries()];
  if (!validTwilioSignature(config.authToken, signedUrl(req), params, req.headers.get('x-twilio-signature'))) {
    throw forbidden('X-Twilio-Signature: missing or not valid for this URL and these parameters', 'invalid_signature');
  }
  const record = Object.fromEntries(params);
  if (record.AccountSid !== config.accountSid) throw forbidden('AccountSid: not this deployment’s Twilio account', 'invalid_account');
  return { config, record };
}

async function twilioInbound(db: Db, req: ApiRequest): Promise<Response> {
  const { config, record } = await verifiedTwilio(req);
  const p = parsed(InboundMessageParams, record);
  const from = addressOf(p.From);
  const to = addressOf(p.To);
  if (from.channel !== to.channel) throw badRequest('From, To: one is a WhatsApp address and the other is not');
  const attachments: ChannelAttachment[] = [];
  const mediaProblems: string[] = [];
  for (const [i, m] of mediaOf(record, p.NumMedia).entries()) {
    const got = await downloadMedia(config, m.url, MAX_MEDIA_BYTES);
    if ('problem' in got) mediaProblems.push(`${m.contentType} (${got.problem})`);
    else attachments.push({ filename: `media-${i + 1}${extensionOf(m.contentType)}`, contentType: got.contentType?.split(';')[0] || m.contentType, content: got.bytes });
  }
  await receiveText(db, {
    provider: 'twilio',
    channel: from.channel,
    providerMessageId: p.MessageSid,
    from: from.number,
    to: to.number,
    groupId: null,
    participants: [],
    body: p.Body,
    name: p.ProfileName ?? null,
    attachments,
    mediaProblems,
    keyword: keywordOf(p.Body, p.OptOutType),
  });
  return twiml();
}

const extensionOf = (type: string) => ({ 'image/jpeg': '.jpg', 'image/png': '.png', 'image/gif': '.gif', 'video/mp4': '.mp4', 'audio/mpeg': '.mp3', 'text/vcard': '.vcf', 'application/pdf': '.pdf' })[type.split(';')[0]!.trim()] ?? '';

async function twilioStatus(db: Db, req: ApiRequest): Promise<Response> {
  const { record } = await verifiedTwilio(req);
  const p = parsed(StatusParams, record);
  const status = textStatusOf('twilio', p.MessageStatus);
  const ref = new URL(req.url, publicOrigin().origin).searchParams.get('ref');
  if (status) await applyTextStatus(db, { provider: 'twilio', ref: ref && /^[0-9a-f]{24}$/.test(ref) ? ref : null, providerMessageId: p.MessageSid, status, errorCode: p.ErrorCode ?? null });
  return noContent();
}

/** A Sendblue webhook, verified: its JSON. 404 while Sendblue (or its webhook secret) is not configured, 403 for a wrong secret. */
async function verifiedSendblue(req: ApiRequest): Promise<unknown> {
  const config = sendblueConfig();
  if (!config?.webhookSecret) throw notFound('Sendblue webhooks');
  if (!sendblueSecretMatches(config, req.headers.get('sb-signing-secret'))) throw forbidden('sb-signing-secret: missing or wrong', 'invalid_signature');
  try {
    return JSON.parse(await bodyOf(req));
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw badRequest('body: not JSON');
  }
}

async function sendblueInbound(db: Db, req: ApiRequest): Promise<Response> {
  const m = parsed(SendblueInbound, await verifiedSendblue(req));
  const to = m.sendblue_number ?? m.to_number;
  if (!to) throw invalidFields([{ field: 'sendblue_number', problem: 'is required' }]);
  const attachments: ChannelAttachment[] = [];
  const mediaProblems: string[] = [];
  if (m.media_url) {
    const got = await fetchPublicMedia(m.media_url);
    if ('problem' in got) mediaProblems.push(`media (${got.problem})`);
    else attachments.push({ filename: m.media_url.split('/').pop()?.split('?')[0] || 'media', contentType: got.contentType, content: got.bytes });
  }
  const groupId = m.group_id || null;
  const body = m.content ?? '';
  await receiveText(db, {
    provider: 'sendblue',
    channel: 'imessage',
    providerMessageId: m.message_handle,
    from: m.from_number,
    to,
    groupId,
    participants: groupId ? (m.participants ?? []) : [],
    body,
    name: null,
    attachments,
    mediaProblems,
    keyword: m.opted_out ? 'stop' : keywordOf(body),
  });
  return noContent();
}

/** Sendblue's media URLs are plain CDN links: fetched under the outbound address rule, at most 5 MB. */
async function fetchPublicMedia(raw: string): Promise<{ bytes: Buffer; contentType: string } | { problem: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'not a URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'not an http(s) URL' };
  const a = await providerRequest({ method: 'GET', url, timeoutMs: 20_000 });
  if (a.status === null) return { problem: a.error };
  if (a.status !== 200) return { problem: `HTTP ${a.status}` };
  if (a.body.byteLength > MAX_MEDIA_BYTES) return { problem: 'too large' };
  return { bytes: a.body, contentType: a.contentType?.split(';')[0] || 'application/octet-stream' };
}

/**
 * Sendblue documents its secret header on received messages; a status callback is accepted with
 * the secret, or without it only when its URL names one of Steward's own sends (`ref`, 96 random
 * bits given to Sendblue alone) and the handle agrees with that send's.
 */
async function sendblueStatus(db: Db, req: ApiRequest): Promise<Response> {
  const config = sendblueConfig();
  if (!config) throw notFound('Sendblue webhooks');
  const ref = new URL(req.url, publicOrigin().origin).searchParams.get('ref');
  const validRef = ref && /^[0-9a-f]{24}$/.test(ref) ? ref : null;
  const secret = req.headers.get('sb-signing-secret');
  if (secret ? !sendblueSecretMatches(config, secret) : !validRef) throw forbidden('sb-signing-secret: missing or wrong', 'invalid_signature');
  let json: unknown;
  try {
    json = JSON.parse(await bodyOf(req));
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw badRequest('body: not JSON');
  }
  const s = parsed(SendblueStatus, json);
  const status = textStatusOf('sendblue', s.status);
  if (status) {
    await applyTextStatus(db, {
      provider: 'sendblue',
      ref: validRef,
      providerMessageId: s.message_handle,
      status,
      errorCode: s.error_code == null ? null : String(s.error_code),
      detail: s.error_message ?? null,
    });
  }
  return noContent();
}

const webhook = (path: string, summary: string, description: string, handle: (db: Db, req: ApiRequest) => Promise<Response>) =>
  defineEndpoint({
    method: 'POST',
    path,
    summary,
    description,
    tags: ['Channels'],
    auth: 'none',
    raw: true,
    response: z.unknown(),
    errors: [400, 403, 404, 413],
    handle: async ({ db, req }) => {
      try {
        return await handle(db, req);
      } catch (e) {
        if (!(e instanceof AppError)) logger.error({ err: e, path }, 'texts: a provider webhook could not be handled');
        throw e;
      }
    },
  });

export const textWebhookEndpoints = [
  webhook(
    '/channels/twilio/messages',
    'Twilio: an SMS, MMS or WhatsApp message to an assistant’s number (signed with X-Twilio-Signature)',
    'Form-encoded, as Twilio posts it. 403 invalid_signature when X-Twilio-Signature does not match STEWARD_PUBLIC_URL + this path and the parameters (nothing is stored); 404 while Twilio is not configured. Answers empty TwiML.',
    twilioInbound,
  ),
  webhook(
    '/channels/twilio/status',
    'Twilio: the delivery status of a text Steward sent (signed with X-Twilio-Signature)',
    'Form-encoded MessageSid, MessageStatus, ErrorCode. Updates the text and what it carried (a dispatch, a chat reply, a notice). 403 / 404 as for messages.',
    twilioStatus,
  ),
  webhook(
    '/channels/sendblue/messages',
    'Sendblue: an iMessage to an assistant’s number (the webhook secret in sb-signing-secret)',
    'JSON, as Sendblue posts received messages. 403 invalid_signature for a wrong or missing secret; 404 while iMessage (SENDBLUE_API_KEY, SENDBLUE_API_SECRET, SENDBLUE_WEBHOOK_SECRET) is not configured.',
    sendblueInbound,
  ),
  webhook('/channels/sendblue/status', 'Sendblue: the delivery status of an iMessage Steward sent (the webhook secret in sb-signing-secret)', 'JSON status callback. 403 / 404 as for messages.', sendblueStatus),
];
