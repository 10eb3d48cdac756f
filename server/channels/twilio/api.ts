import type { twilioTextChannels } from '@/db/schema/channel-names';
import type { TwilioConfig } from './config';
import { jsonOf, providerRequest, type ProviderAnswer } from './http';
import { TOTAL_MS } from '@/server/http/outbound-timeouts';
import { AvailableNumbersAnswer, ErrorAnswer, IncomingNumberAnswer, IncomingNumbersAnswer, MessageAnswer } from './payloads';

/*
 * The Twilio REST calls Steward makes (API version 2010-04-01, form-encoded, HTTP basic auth):
 * create a Message, download an MMS's media, search AvailablePhoneNumbers and buy one as an
 * IncomingPhoneNumber pointed at Steward's webhooks. Every answer is checked with Zod.
 */

/** What became of a send: created (Twilio's sid), refused (nothing was sent), or not known. */
export type TwilioSend =
  | { ok: true; sid: string; status: string }
  | { ok: false; definite: true; code: number | null; reason: string }
  | { ok: false; definite: false; reason: string };

/** Twilio's error codes Steward names (Twilio's error dictionary). */
export const TWILIO_OPTED_OUT = 21610;
export const TWILIO_OUTSIDE_WINDOW = 63016;

/** The Basic authorization of Twilio's REST API (Account SID + Auth Token, or API key + secret). */
export const basic = (c: TwilioConfig) => `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
const accountPath = (c: TwilioConfig, rest: string) => new URL(`${c.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(c.accountSid)}/${rest}`);

function post(c: TwilioConfig, rest: string, form: URLSearchParams): Promise<ProviderAnswer> {
  return providerRequest({
    method: 'POST',
    url: accountPath(c, rest),
    headers: { Authorization: basic(c), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: form.toString(),
  });
}

function refusal(a: Extract<ProviderAnswer, { status: number }>): { code: number | null; reason: string } {
  const e = ErrorAnswer.safeParse(jsonOf(a));
  const code = e.success ? (e.data.code ?? null) : null;
  const message = e.success && e.data.message ? e.data.message.slice(0, 300) : `HTTP ${a.status}`;
  return { code, reason: `Twilio refused it${code ? ` (${code})` : ''}: ${message}` };
}

export type MessageRequest = {
  /** The sender: an E.164 number, or a Messaging Service sid (MG…). */
  from: string;
  to: string;
  channel: (typeof twilioTextChannels)[number];
  body?: string;
  mediaUrls?: string[];
  /** An approved template (Content API sid) and its variables, instead of a body. */
  contentSid?: string;
  contentVariables?: Record<string, string>;
  statusCallback: string;
};

export async function createMessage(c: TwilioConfig, m: MessageRequest): Promise<TwilioSend> {
  const prefix = m.channel === 'whatsapp' ? 'whatsapp:' : '';
  const form = new URLSearchParams();
  form.set('To', `${prefix}${m.to}`);
  if (/^MG[0-9a-fA-F]{32}$/.test(m.from)) form.set('MessagingServiceSid', m.from);
  else form.set('From', `${prefix}${m.from}`);
  if (m.contentSid) {
    form.set('ContentSid', m.contentSid);
    if (m.contentVariables) form.set('ContentVariables', JSON.stringify(m.contentVariables));
  } else form.set('Body', m.body ?? '');
  for (const url of m.mediaUrls ?? []) form.append('MediaUrl', url);
  form.set('StatusCallback', m.statusCallback);
  const a = await post(c, 'Messages.json', form);
  if (a.status === null) return a.reached ? { ok: false, definite: false, reason: `Twilio's answer was lost (${a.error}): the text may or may not have been sent` } : { ok: false, definite: true, code: null, reason: `Twilio could not be reached: ${a.error}` };
  if (a.status === 200 || a.status === 201) {
    const created = MessageAnswer.safeParse(jsonOf(a));
    if (created.success) return { ok: true, sid: created.data.sid, status: created.data.status };
    return { ok: false, definite: false, reason: 'Twilio answered without a message sid: the text may or may not have been sent' };
  }
  // A 5xx may come after the message was created; a 4xx is a refusal before anything was sent.
  if (a.status >= 500) return { ok: false, definite: false, reason: `Twilio answered ${a.status}: the text may or may not have been sent` };
  return { ok: false, definite: true, ...refusal(a) };
}

/** An MMS's media: Twilio's media URLs answer with the bytes or a redirect to them (credentials only ever go to Twilio's own API host). */
export async function downloadMedia(c: TwilioConfig, raw: string, maxBytes: number): Promise<{ bytes: Buffer; contentType: string | null } | { problem: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'not a URL' };
  }
  const api = new URL(c.apiUrl);
  for (let hop = 0; hop < 4; hop++) {
    const a = await providerRequest({ method: 'GET', url, headers: url.origin === api.origin ? { Authorization: basic(c) } : {}, timeoutMs: TOTAL_MS.media });
    if (a.status === null) return { problem: a.error };
    if (a.status >= 300 && a.status < 400 && a.location) {
      url = new URL(a.location, url);
      continue;
    }
    if (a.status !== 200) return { problem: `HTTP ${a.status}` };
    if (a.body.byteLength > maxBytes) return { problem: 'too large' };
    return { bytes: a.body, contentType: a.contentType };
  }
  return { problem: 'too many redirects' };
}

/** AvailablePhoneNumbers/{country}/Local: numbers that can be bought now. */
export async function availableNumbers(c: TwilioConfig, q: { country: string; areaCode?: string | null; sms: boolean; voice: boolean }): Promise<string[]> {
  const url = accountPath(c, `AvailablePhoneNumbers/${encodeURIComponent(q.country)}/Local.json`);
  if (q.areaCode) url.searchParams.set('AreaCode', q.areaCode);
  if (q.sms) url.searchParams.set('SmsEnabled', 'true');
  if (q.voice) url.searchParams.set('VoiceEnabled', 'true');
  url.searchParams.set('PageSize', '5');
  const a = await providerRequest({ method: 'GET', url, headers: { Authorization: basic(c), Accept: 'application/json' } });
  if (a.status === null) throw new Error(`Twilio could not be reached: ${a.error}`);
  if (a.status !== 200) throw new Error(refusal(a).reason);
  const list = AvailableNumbersAnswer.safeParse(jsonOf(a));
  if (!list.success) throw new Error('Twilio answered the number search in an unexpected form');
  return list.data.available_phone_numbers.map((n) => n.phone_number);
}

/** IncomingPhoneNumbers read by FriendlyName: the account's number bought under that name, if any. */
export async function ownedNumberNamed(c: TwilioConfig, friendlyName: string): Promise<{ sid: string; number: string } | null> {
  const url = accountPath(c, 'IncomingPhoneNumbers.json');
  url.searchParams.set('FriendlyName', friendlyName);
  url.searchParams.set('PageSize', '1');
  const a = await providerRequest({ method: 'GET', url, headers: { Authorization: basic(c), Accept: 'application/json' } });
  if (a.status === null) throw new Error(`Twilio could not be reached: ${a.error}`);
  if (a.status !== 200) throw new Error(refusal(a).reason);
  const list = IncomingNumbersAnswer.safeParse(jsonOf(a));
  if (!list.success) throw new Error('Twilio answered the number list in an unexpected form');
  const first = list.data.incoming_phone_numbers[0];
  return first ? { sid: first.sid, number: first.phone_number } : null;
}

/** IncomingPhoneNumbers: buys the number, its messages and their status going to Steward's webhooks. */
export async function buyNumber(c: TwilioConfig, n: { phoneNumber: string; smsUrl: string; voiceUrl?: string | null; voiceStatusUrl?: string | null; friendlyName?: string }): Promise<{ sid: string; number: string }> {
  const form = new URLSearchParams({ PhoneNumber: n.phoneNumber, SmsUrl: n.smsUrl, SmsMethod: 'POST' });
  if (n.friendlyName) form.set('FriendlyName', n.friendlyName);
  if (n.voiceUrl) {
    form.set('VoiceUrl', n.voiceUrl);
    form.set('VoiceMethod', 'POST');
  }
  if (n.voiceStatusUrl) {
    form.set('StatusCallback', n.voiceStatusUrl);
    form.set('StatusCallbackMethod', 'POST');
  }
  const a = await post(c, 'IncomingPhoneNumbers.json', form);
  if (a.status === null) throw new Error(`Twilio could not be reached: ${a.error}`);
  if (a.status !== 200 && a.status !== 201) throw new Error(refusal(a).reason);
  const bought = IncomingNumberAnswer.safeParse(jsonOf(a));
  if (!bought.success) throw new Error('Twilio answered the purchase in an unexpected form');
  return { sid: bought.data.sid, number: bought.data.phone_number };
}
