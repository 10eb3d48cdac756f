import type { CallPlacement } from './calls';
import type { ChannelName, Delivery, OutboundChannelMessage } from './message';
import { emailSender } from './email/sender';

/*
 * How the core reaches a channel that predates the port (server/channels/adapter.ts; Telegram and
 * Teams are on it and are sent through port-send.ts). Each such channel offers one outlet, filled once by
 * server/compose/channels.ts: `send` for a conversation message, whose kind (a chat turn's reply
 * or Steward's notice) the caller says, `dispatch` for an approved send_message, `call` for an
 * approved place_call. Both answer
 * with the one Delivery type every channel reports. The hosted inbox's outlet is always here
 * (SMTP_URL; without it a send fails, said so); a channel with no outlet, or an outlet without
 * dispatches, fails with `no provider configured for <channel>`, never a pretend delivery.
 */

/** An approved send_message (spec 4) as the staging assistant sends it, exactly as approved. */
export type OutboundMessage = {
  platform: string;
  to: string;
  body: string;
  /** Stable per dispatch version: a provider that deduplicates takes it as its idempotency key, and an adapter records its intent under it. */
  idempotencyKey: string;
  /** Whose message it is: the account, the assistant it goes out from (its line on the platform), and the dispatch. */
  accountId?: string;
  assistantId?: string;
  dispatchId?: string;
  /** An approved template instead of free text (WhatsApp outside the 24-hour window): the provider's template id and its variables. */
  template?: { id: string; variables: Record<string, string> } | null;
  /** Files the approved message carries, as links the provider fetches (server/files/media-links.ts): texts through Twilio. */
  mediaUrls?: string[];
  /** Files the approved message carries, as bytes the adapter uploads with it: iMessage (Sendblue’s upload). */
  files?: Array<{ filename: string; contentType: string; content: Buffer }>;
};

/**
 * One channel's sending half. Both answer rather than throw once the provider may have the
 * message: a throw is taken to mean nothing left, so after that the answer must be `unknown`.
 */
export type ChannelOutlet = {
  channel: ChannelName;
  /** A message of a conversation: `message.kind` says whether it answers a turn or is a notice. Absent on voice (a call's answer is spoken in it). */
  send?: (message: OutboundChannelMessage) => Promise<Delivery>;
  /** An approved send_message dispatch; absent where send_message does not reach (email has send_email). */
  dispatch?: (message: OutboundMessage) => Promise<Delivery>;
  /** An approved place_call (voice): dialled once per dispatch version; `accepted` means the provider is dialling. */
  call?: (call: CallPlacement) => Promise<Delivery>;
};

const outlets = new Map<ChannelName, ChannelOutlet>([['email', emailSender]]);

/** A channel's outlet (filled from server/compose/channels.ts only). */
export function registerChannelOutlet(outlet: ChannelOutlet): void {
  outlets.set(outlet.channel, outlet);
}

export const outletFor = (channel: string): ChannelOutlet | null => outlets.get(channel as ChannelName) ?? null;

/** Sends an approved dispatch through its platform's outlet; with none the message is `failed` with the reason. */
export async function sendChannelMessage(message: OutboundMessage): Promise<Delivery> {
  const dispatch = outletFor(message.platform)?.dispatch;
  if (!dispatch) return { state: 'failed', providerMessageId: null, reason: `no provider configured for ${message.platform}` };
  return dispatch(message);
}

/**
 * An outlet whose own failures before the provider was called (a database read, a sealed token
 * that will not open) are `failed` with the reason, named for the channel: nothing left.
 */
export function guardedOutlet(name: string, outlet: ChannelOutlet): ChannelOutlet {
  const guard =
    <M>(fn: (m: M) => Promise<Delivery>) =>
    async (m: M): Promise<Delivery> => {
      try {
        return await fn(m);
      } catch (e) {
        return { state: 'failed', providerMessageId: null, reason: `${name} adapter: ${(e as Error).message}` };
      }
    };
  return {
    channel: outlet.channel,
    ...(outlet.send ? { send: guard(outlet.send) } : {}),
    ...(outlet.dispatch ? { dispatch: guard(outlet.dispatch) } : {}),
    ...(outlet.call ? { call: guard(outlet.call) } : {}),
  };
}

/** Places one approved call through the voice outlet; without one, it is refused with the reason. */
export async function placeCall(call: CallPlacement): Promise<Delivery> {
  const place = outletFor('voice')?.call;
  if (!place) return { state: 'failed', providerMessageId: null, reason: 'no provider configured for voice' };
  return place(call);
}
