import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TextWebhookRequest } from '@/server/channels/adapter';
import { textStatusOf, twilioText, sendblueText, refOf, fields } from '@/server/channels/texts/transform';
import { textWebhooks } from '@/server/channels/texts/webhook';
import { twilioSignature } from '@/server/channels/twilio/signature';
import { InboundMessageParams } from '@/server/channels/twilio/payloads';
import { SendblueInbound } from '@/server/channels/imessage/sendblue';
import { AppError } from '@/server/http/errors';

/*
 * The texts' inbound half of the port without a server: the providers' webhooks verified and mapped
 * to the common form (a text or a status report), as the core receives them. The whole path, with
 * the providers' stand-ins, is tests/channels/twilio-texts, twilio-imessage and imessage-files.
 */

const SID = `SM${'a'.repeat(32)}`;
const ACCOUNT = `AC${'b'.repeat(32)}`;
const hook = (path: string) => textWebhooks.find((h) => h.path === path)!;

function form(url: string, params: Record<string, string>, token: string | null): TextWebhookRequest {
  const entries = Object.entries(params);
  const headers = new Headers(token ? { 'x-twilio-signature': twilioSignature(token, url, entries) } : {});
  return { url: new URL(url), headers, rawBody: Buffer.from(new URLSearchParams(entries).toString()) };
}

const json = (url: string, body: unknown, secret?: string): TextWebhookRequest => ({ url: new URL(url), headers: new Headers(secret ? { 'sb-signing-secret': secret } : {}), rawBody: Buffer.from(JSON.stringify(body)) });

describe('Twilio’s one webhook for SMS and WhatsApp', () => {
  const saved = { ...process.env };
  beforeEach(() => Object.assign(process.env, { TWILIO_ACCOUNT_SID: ACCOUNT, TWILIO_AUTH_TOKEN: 'tok' }));
  afterEach(() => {
    for (const k of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'SENDBLUE_API_KEY', 'SENDBLUE_API_SECRET', 'SENDBLUE_WEBHOOK_SECRET']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
  const url = 'https://steward.example/api/channels/twilio/messages';
  const params = { MessageSid: SID, AccountSid: ACCOUNT, From: 'whatsapp:+15550001111', To: 'whatsapp:+15550002222', Body: 'Hello', NumMedia: '1', MediaUrl0: 'https://api.twilio.com/m/1', MediaContentType0: 'image/png', ProfileName: 'Ann' };

  it('takes a request signed over its URL and parameters, and refuses an unsigned one, another URL’s signature, another account’s, or any while Twilio is off', () => {
    const messages = hook('/channels/twilio/messages');
    expect(messages.verify(form(url, params, 'tok'))).toEqual({ ok: true });
    expect(messages.verify(form(url, params, null))).toMatchObject({ ok: false, status: 403 });
    const elsewhere = form('https://attacker.example/api/channels/twilio/messages', params, 'tok');
    expect(messages.verify({ ...elsewhere, url: new URL(url) })).toMatchObject({ ok: false, status: 403 });
    expect(messages.verify(form(url, { ...params, AccountSid: `AC${'c'.repeat(32)}` }, 'tok'))).toMatchObject({ ok: false, status: 403, reason: expect.stringContaining('AccountSid') });
    delete process.env.TWILIO_AUTH_TOKEN;
    expect(messages.configured()).toBe(false);
    expect(messages.verify(form(url, params, 'tok'))).toMatchObject({ ok: false, status: 404 });
  });

  it('maps a WhatsApp message with a picture to the common form; the file is named, not fetched', () => {
    const event = hook('/channels/twilio/messages').parse(form(url, params, 'tok'));
    expect(event.kind).toBe('text');
    if (event.kind !== 'text') return;
    const { files, ...text } = event.text;
    expect(text).toEqual({ provider: 'twilio', channel: 'whatsapp', providerMessageId: SID, from: '+15550001111', to: '+15550002222', groupId: null, participants: [], body: 'Hello', name: 'Ann', keyword: null });
    expect(files.map((f) => [f.filename, f.contentType])).toEqual([['media-1.png', 'image/png']]);
  });

  it('an SMS is SMS; STOP (or Twilio’s OptOutType) is the keyword; a WhatsApp sender to an SMS number is 400', () => {
    const sms = twilioText(fields(InboundMessageParams, { ...params, From: '+15550001111', To: '+15550002222', Body: ' stop ', NumMedia: '0' }), {});
    expect(sms.text).toMatchObject({ channel: 'sms', keyword: 'stop' });
    expect(twilioText(fields(InboundMessageParams, { ...params, From: '+15550001111', To: '+15550002222', Body: 'please', OptOutType: 'HELP' }), {}).text.keyword).toBe('help');
    expect(() => twilioText(fields(InboundMessageParams, { ...params, To: '+15550002222' }), {})).toThrow(AppError);
  });

  it('a text with a character PostgreSQL cannot store is taken, not refused (the write replaces it; Twilio would not send it again)', () => {
    const event = hook('/channels/twilio/messages').parse(form(url, { ...params, Body: 'a\u0000b', NumMedia: '0' }, 'tok'));
    expect(event).toMatchObject({ kind: 'text', text: { body: 'a\u0000b' } });
  });

  it('bad parameters are a 400 naming each field', () => {
    try {
      hook('/channels/twilio/messages').parse(form(url, { ...params, MessageSid: 'nope', From: '5550001111' }, 'tok'));
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).status).toBe(400);
      expect(JSON.stringify(e)).toContain('MessageSid');
      expect(JSON.stringify(e)).toContain('From');
    }
  });

  it('a status callback names the send by its ref when well formed; a word that says nothing new is ignored', () => {
    const statusUrl = 'https://steward.example/api/channels/twilio/status?ref=0123456789abcdef01234567';
    const status = hook('/channels/twilio/status');
    expect(status.parse(form(statusUrl, { MessageSid: SID, AccountSid: ACCOUNT, MessageStatus: 'undelivered', ErrorCode: '30003' }, 'tok'))).toEqual({
      kind: 'status',
      report: { provider: 'twilio', ref: '0123456789abcdef01234567', providerMessageId: SID, status: 'undelivered', errorCode: '30003' },
    });
    expect(status.parse(form(statusUrl, { MessageSid: SID, AccountSid: ACCOUNT, MessageStatus: 'receiving' }, 'tok')).kind).toBe('ignored');
    expect(refOf(new URL('https://x.test/s?ref=../../etc'))).toBeNull();
    expect(status.answer).toEqual({ status: 204 });
    expect(hook('/channels/twilio/messages').answer).toMatchObject({ status: 200, contentType: expect.stringContaining('text/xml'), body: expect.stringContaining('<Response>') });
  });
});

describe('Sendblue’s webhooks for iMessage', () => {
  const saved = { ...process.env };
  beforeEach(() => Object.assign(process.env, { SENDBLUE_API_KEY: 'k', SENDBLUE_API_SECRET: 's', SENDBLUE_WEBHOOK_SECRET: 'hook-secret' }));
  afterEach(() => {
    for (const k of ['SENDBLUE_API_KEY', 'SENDBLUE_API_SECRET', 'SENDBLUE_WEBHOOK_SECRET']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
  const inbound = { message_handle: 'h-1', content: 'Hi all', is_outbound: false, from_number: '+15550001111', sendblue_number: '+15550002222', group_id: 'g-7', participants: ['+15550001111', '+15550003333'], media_url: 'https://cdn.sendblue.test/a/photo.jpg?x=1' };

  it('a message needs the webhook secret; a status callback takes the secret or a well-formed ref of Steward’s own send', () => {
    const messages = hook('/channels/sendblue/messages');
    const status = hook('/channels/sendblue/status');
    expect(messages.verify(json('https://s.test/api/channels/sendblue/messages', inbound, 'hook-secret'))).toEqual({ ok: true });
    expect(messages.verify(json('https://s.test/api/channels/sendblue/messages', inbound, 'wrong'))).toMatchObject({ ok: false, status: 403 });
    expect(messages.verify(json('https://s.test/api/channels/sendblue/messages?ref=0123456789abcdef01234567', inbound))).toMatchObject({ ok: false, status: 403 });
    expect(status.verify(json('https://s.test/api/channels/sendblue/status?ref=0123456789abcdef01234567', {}))).toEqual({ ok: true });
    expect(status.verify(json('https://s.test/api/channels/sendblue/status', {}))).toMatchObject({ ok: false, status: 403 });
    expect(status.verify(json('https://s.test/api/channels/sendblue/status?ref=0123456789abcdef01234567', {}, 'wrong'))).toMatchObject({ ok: false, status: 403 });
    delete process.env.SENDBLUE_WEBHOOK_SECRET;
    expect(messages.configured()).toBe(false);
    expect(status.configured()).toBe(true);
  });

  it('maps a group message with a photo; the file takes its name from the link', () => {
    const { text, media } = sendblueText(fields(SendblueInbound, inbound));
    expect(text).toEqual({ provider: 'sendblue', channel: 'imessage', providerMessageId: 'h-1', from: '+15550001111', to: '+15550002222', groupId: 'g-7', participants: ['+15550001111', '+15550003333'], body: 'Hi all', name: null, keyword: null });
    expect(media.map((m) => m.filename)).toEqual(['photo.jpg']);
    expect(sendblueText(fields(SendblueInbound, { ...inbound, group_id: null, opted_out: true })).text).toMatchObject({ groupId: null, participants: [], keyword: 'stop' });
  });

  it('status words map onto a text’s states', () => {
    expect(textStatusOf('sendblue', 'DECLINED')).toBe('failed');
    expect(textStatusOf('sendblue', 'REGISTERED')).toBe('accepted');
    expect(textStatusOf('twilio', 'canceled')).toBe('failed');
    expect(textStatusOf('twilio', 'scheduled')).toBe('queued');
    expect(textStatusOf('twilio', 'receiving')).toBeNull();
  });
});
