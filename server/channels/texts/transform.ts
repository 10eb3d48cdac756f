import type { z } from 'zod';
import type { TextProvider } from '@/db/schema';
import { badRequest, invalidFields } from '@/server/http/errors';
import { parsePayload } from '@/server/http/validate';
import type { InboundText, TextStatusReport } from '../adapter';
import type { SendblueInbound, SendblueStatus } from '../imessage/sendblue';
import { keywordOf } from '../twilio/keywords';
import { addressOf, mediaOf, type InboundMessageParams, type StatusParams } from '../twilio/payloads';

/*
 * The texts' providers' webhooks mapped to the common form (adapter.ts: InboundText,
 * TextStatusReport): pure functions, tested without a server (tests/channels/texts-transform.test.ts).
 * A file is named here and fetched later, by the webhook (webhook.ts), when the core asks.
 */

/** A parameter set that does not fit its schema: 400 naming each field (what cannot be stored is replaced at the write, not refused). */
export const fields = <S extends z.ZodType>(schema: S, value: unknown): z.output<S> => parsePayload(schema, value);

/** A file a text named, before it is fetched: where the provider keeps it and what it says it is. */
export type NamedMedia = { url: string; contentType: string; filename: string };

export type TextWithoutFiles = Omit<InboundText, 'files'>;

const EXTENSIONS: Record<string, string> = { 'image/jpeg': '.jpg', 'image/png': '.png', 'image/gif': '.gif', 'video/mp4': '.mp4', 'audio/mpeg': '.mp3', 'text/vcard': '.vcf', 'application/pdf': '.pdf' };
export const extensionOf = (type: string) => EXTENSIONS[type.split(';')[0]!.trim().toLowerCase()] ?? '';

/**
 * A Twilio message: one webhook for two channels, told apart by the address (`whatsapp:+1…` is
 * WhatsApp, a bare number SMS); both ends on the same channel, or 400.
 */
export function twilioText(p: InboundMessageParams, record: Record<string, unknown>): { text: TextWithoutFiles; media: NamedMedia[] } {
  const from = addressOf(p.From);
  const to = addressOf(p.To);
  if (from.channel !== to.channel) throw badRequest('From, To: one is a WhatsApp address and the other is not');
  return {
    text: {
      provider: 'twilio',
      channel: from.channel,
      providerMessageId: p.MessageSid,
      from: from.number,
      to: to.number,
      groupId: null,
      participants: [],
      body: p.Body,
      name: p.ProfileName ?? null,
      keyword: keywordOf(p.Body, p.OptOutType),
    },
    media: mediaOf(record, p.NumMedia).map((m, i) => ({ ...m, filename: `media-${i + 1}${extensionOf(m.contentType)}` })),
  };
}

/** A Sendblue iMessage: to the assistant's number (`sendblue_number`, else `to_number`); a group's members only for a group. */
export function sendblueText(m: SendblueInbound): { text: TextWithoutFiles; media: NamedMedia[] } {
  const to = m.sendblue_number ?? m.to_number;
  if (!to) throw invalidFields([{ field: 'sendblue_number', problem: 'is required' }]);
  const groupId = m.group_id || null;
  const body = m.content ?? '';
  return {
    text: {
      provider: 'sendblue',
      channel: 'imessage',
      providerMessageId: m.message_handle,
      from: m.from_number,
      to,
      groupId,
      participants: groupId ? (m.participants ?? []) : [],
      body,
      name: null,
      keyword: m.opted_out ? 'stop' : keywordOf(body),
    },
    media: m.media_url ? [{ url: m.media_url, contentType: 'application/octet-stream', filename: m.media_url.split('/').pop()?.split('?')[0] || 'media' }] : [],
  };
}

/** A provider's status word as a text's status; words that say nothing new (Twilio's `receiving`) are null. */
export function textStatusOf(provider: TextProvider, raw: string): TextStatusReport['status'] | null {
  const s = raw.toLowerCase();
  if (provider === 'sendblue') {
    if (s === 'error' || s === 'failed' || s === 'declined') return 'failed';
    if (s === 'registered' || s === 'pending' || s === 'accepted') return 'accepted';
  }
  if (s === 'canceled') return 'failed';
  return (['accepted', 'queued', 'sent', 'delivered', 'read', 'undelivered', 'failed'] as const).find((x) => x === s) ?? (s === 'sending' || s === 'scheduled' ? 'queued' : null);
}

/** The send a callback URL names (`?ref=`, an outbound text's id as Steward wrote it), or null. */
export function refOf(url: URL): string | null {
  const ref = url.searchParams.get('ref');
  return ref && /^[0-9a-f]{24}$/.test(ref) ? ref : null;
}

export function twilioStatus(p: StatusParams, url: URL): TextStatusReport | null {
  const status = textStatusOf('twilio', p.MessageStatus);
  return status && { provider: 'twilio', ref: refOf(url), providerMessageId: p.MessageSid, status, errorCode: p.ErrorCode ?? null };
}

export function sendblueStatus(s: SendblueStatus, url: URL): TextStatusReport | null {
  const status = textStatusOf('sendblue', s.status);
  return status && { provider: 'sendblue', ref: refOf(url), providerMessageId: s.message_handle, status, errorCode: s.error_code == null ? null : String(s.error_code), detail: s.error_message ?? null };
}
