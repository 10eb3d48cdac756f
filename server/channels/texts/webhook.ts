import type { InboundFile, TextWebhook, TextWebhookEvent, TextWebhookRequest, Verified } from '../adapter';
import { sendblueConfig, sendblueSecretMatches, SendblueInbound, SendblueStatus } from '../imessage/sendblue';
import { downloadMedia } from '../twilio/api';
import { twilioWebhookConfig } from '../twilio/config';
import { providerRequest } from '../twilio/http';
import { InboundMessageParams, StatusParams } from '../twilio/payloads';
import { verifyTwilio } from '../twilio/webhook';
import { fields, refOf, sendblueStatus, sendblueText, twilioStatus, twilioText, type NamedMedia } from './transform';
import { badRequest } from '@/server/http/errors';

/*
 * The texts' provider webhooks (spec 5, Provider webhooks), the inbound half of the texts' adapter:
 * - Twilio (POST /channels/twilio/messages and /status): X-Twilio-Signature (twilio/webhook.ts).
 *   One webhook for SMS and WhatsApp alike; the address says which (transform.ts).
 * - Sendblue (POST /channels/sendblue/messages and /status): the webhook secret in
 *   `sb-signing-secret`. Sendblue documents the secret on received messages; a status callback
 *   is taken with it, or without it only when its URL names one of Steward's own sends (`ref`, 96
 *   random bits given to Sendblue alone): the core then applies it only where the provider's
 *   handle agrees with that send's (texts-status.ts).
 * A provider without credentials is off: its paths answer 404. A file is fetched only when the
 * core asks (after verification), at most 5 MB: Twilio's with the account's credentials, Sendblue's
 * (plain CDN links) under the outbound address rule.
 */

const MAX_MEDIA_BYTES = 5 * 1024 * 1024;
const TWIML_EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

const formOf = (req: TextWebhookRequest) => Object.fromEntries(new URLSearchParams(req.rawBody.toString('utf8')).entries());

function jsonOf(req: TextWebhookRequest): unknown {
  try {
    return JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    throw badRequest('body: not JSON');
  }
}

const twilioFile =
  (m: NamedMedia): InboundFile['fetch'] =>
  async () => {
    const config = twilioWebhookConfig();
    if (!config) return { problem: 'Twilio is not configured' };
    const got = await downloadMedia(config, m.url, MAX_MEDIA_BYTES);
    return 'problem' in got ? got : { filename: m.filename, contentType: got.contentType?.split(';')[0] || m.contentType, content: got.bytes };
  };

/** Sendblue's media URLs are plain CDN links: fetched under the outbound address rule. */
const sendblueFile =
  (m: NamedMedia): InboundFile['fetch'] =>
  async () => {
    let url: URL;
    try {
      url = new URL(m.url);
    } catch {
      return { problem: 'not a URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'not an http(s) URL' };
    const a = await providerRequest({ method: 'GET', url, timeoutMs: 20_000 });
    if (a.status === null) return { problem: a.error };
    if (a.status !== 200) return { problem: `HTTP ${a.status}` };
    if (a.body.byteLength > MAX_MEDIA_BYTES) return { problem: 'too large' };
    return { filename: m.filename, contentType: a.contentType?.split(';')[0] || m.contentType, content: a.body };
  };

const withFiles = (parsed: ReturnType<typeof twilioText>, fetcher: (m: NamedMedia) => InboundFile['fetch']): TextWebhookEvent => ({
  kind: 'text',
  text: { ...parsed.text, files: parsed.media.map((m) => ({ filename: m.filename, contentType: m.contentType, fetch: fetcher(m) })) },
});

const verifiedTwilio = (req: TextWebhookRequest): Verified => {
  const v = verifyTwilio(req);
  return v.ok ? { ok: true } : v;
};

function verifySendblue(req: TextWebhookRequest, statusByRef: boolean): Verified {
  const config = sendblueConfig();
  if (!config || (!statusByRef && !config.webhookSecret)) return { ok: false, status: 404, reason: 'Sendblue is not configured' };
  const secret = req.headers.get('sb-signing-secret');
  if (secret ? sendblueSecretMatches(config, secret) : statusByRef && refOf(req.url)) return { ok: true };
  return { ok: false, status: 403, reason: 'sb-signing-secret: missing or wrong' };
}

export const textWebhooks: readonly TextWebhook[] = [
  {
    path: '/channels/twilio/messages',
    summary: 'Twilio: an SMS, MMS or WhatsApp message to an assistant’s number (signed with X-Twilio-Signature)',
    description:
      'Form-encoded, as Twilio posts it. 403 invalid_signature when X-Twilio-Signature does not match STEWARD_PUBLIC_URL + this path and the parameters (nothing is stored); 404 while Twilio is not configured. Answers empty TwiML.',
    configured: () => twilioWebhookConfig() !== null,
    verify: verifiedTwilio,
    parse: (req) => {
      const record = formOf(req);
      return withFiles(twilioText(fields(InboundMessageParams, record), record), twilioFile);
    },
    answer: { status: 200, contentType: 'text/xml; charset=utf-8', body: TWIML_EMPTY },
  },
  {
    path: '/channels/twilio/status',
    summary: 'Twilio: the delivery status of a text Steward sent (signed with X-Twilio-Signature)',
    description: 'Form-encoded MessageSid, MessageStatus, ErrorCode. Updates the text and what it carried (a dispatch, a chat reply, a notice). 403 / 404 as for messages.',
    configured: () => twilioWebhookConfig() !== null,
    verify: verifiedTwilio,
    parse: (req) => {
      const report = twilioStatus(fields(StatusParams, formOf(req)), req.url);
      return report ? { kind: 'status', report } : { kind: 'ignored', reason: 'a status that changes nothing' };
    },
    answer: { status: 204 },
  },
  {
    path: '/channels/sendblue/messages',
    summary: 'Sendblue: an iMessage to an assistant’s number (the webhook secret in sb-signing-secret)',
    description:
      'JSON, as Sendblue posts received messages. 403 invalid_signature for a wrong or missing secret; 404 while iMessage (SENDBLUE_API_KEY, SENDBLUE_API_SECRET, SENDBLUE_WEBHOOK_SECRET) is not configured.',
    configured: () => Boolean(sendblueConfig()?.webhookSecret),
    verify: (req) => verifySendblue(req, false),
    parse: (req) => withFiles(sendblueText(fields(SendblueInbound, jsonOf(req))), sendblueFile),
    answer: { status: 204 },
  },
  {
    path: '/channels/sendblue/status',
    summary: 'Sendblue: the delivery status of an iMessage Steward sent (the webhook secret in sb-signing-secret)',
    description: 'JSON status callback. 403 / 404 as for messages.',
    configured: () => sendblueConfig() !== null,
    verify: (req) => verifySendblue(req, true),
    parse: (req) => {
      const report = sendblueStatus(fields(SendblueStatus, jsonOf(req)), req.url);
      return report ? { kind: 'status', report } : { kind: 'ignored', reason: 'a status that changes nothing' };
    },
    answer: { status: 204 },
  },
];
