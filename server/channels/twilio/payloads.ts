import { z } from 'zod';
import type { twilioTextChannels } from '@/db/schema/channel-names';

/*
 * What Twilio sends and answers, checked with Zod (Twilio's "Webhook request" and "Message
 * resource" pages). Twilio adds parameters without notice, so unknown ones are kept (they are
 * signed like the rest) and ignored.
 */

export const E164 = /^\+[1-9]\d{6,14}$/;
const Sid = (prefix: string) => z.string().regex(new RegExp(`^${prefix}[0-9a-fA-F]{32}$`), `must be a Twilio ${prefix} sid`);

/** `+15551234567` or `whatsapp:+15551234567`. */
const Address = z.string().regex(/^(whatsapp:)?\+[1-9]\d{6,14}$/, 'must be an E.164 number, or whatsapp: and one');

export const InboundMessageParams = z
  .object({
    MessageSid: z.string().regex(/^(SM|MM)[0-9a-fA-F]{32}$/, 'must be a Twilio message sid'),
    AccountSid: Sid('AC'),
    From: Address,
    To: Address,
    Body: z.string().max(16_000).default(''),
    NumMedia: z.coerce.number().int().min(0).max(10).default(0),
    OptOutType: z.enum(['STOP', 'START', 'HELP']).optional(),
    ProfileName: z.string().max(256).optional(),
  })
  .loose();
export type InboundMessageParams = z.infer<typeof InboundMessageParams>;

export const StatusParams = z
  .object({
    MessageSid: z.string().regex(/^(SM|MM)[0-9a-fA-F]{32}$/, 'must be a Twilio message sid'),
    AccountSid: Sid('AC'),
    MessageStatus: z.enum(['accepted', 'scheduled', 'canceled', 'queued', 'sending', 'sent', 'failed', 'delivered', 'undelivered', 'receiving', 'received', 'read', 'partially_delivered']),
    ErrorCode: z.string().max(10).optional(),
  })
  .loose();
export type StatusParams = z.infer<typeof StatusParams>;

/** The media items of an MMS: MediaUrl{N} and MediaContentType{N}. */
export function mediaOf(params: Record<string, unknown>, count: number): Array<{ url: string; contentType: string }> {
  const out: Array<{ url: string; contentType: string }> = [];
  for (let i = 0; i < count; i++) {
    const url = params[`MediaUrl${i}`];
    const contentType = params[`MediaContentType${i}`];
    if (typeof url === 'string' && /^https?:\/\//.test(url)) out.push({ url, contentType: typeof contentType === 'string' ? contentType : 'application/octet-stream' });
  }
  return out;
}

/** A channel address split: `whatsapp:+1555…` → whatsapp, +1555…. */
export function addressOf(address: string): { channel: (typeof twilioTextChannels)[number]; number: string } {
  return address.startsWith('whatsapp:') ? { channel: 'whatsapp', number: address.slice('whatsapp:'.length) } : { channel: 'sms', number: address };
}

export const MessageAnswer = z.object({ sid: z.string().min(1), status: z.string(), error_code: z.union([z.number(), z.string()]).nullable().optional() }).loose();
export const ErrorAnswer = z.object({ code: z.coerce.number().optional(), message: z.string().optional(), status: z.number().optional() }).loose();

export const AvailableNumbersAnswer = z.object({
  available_phone_numbers: z.array(z.object({ phone_number: z.string().regex(E164), capabilities: z.record(z.string(), z.unknown()).optional() }).loose()),
});
export const IncomingNumberAnswer = z.object({ sid: z.string().min(1), phone_number: z.string().regex(E164) }).loose();
export const IncomingNumbersAnswer = z.object({ incoming_phone_numbers: z.array(IncomingNumberAnswer) }).loose();
