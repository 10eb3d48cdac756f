import type { CallPlacement } from './calls';
import type { ChannelName, Delivery, OutboundChannelMessage } from './message';
import { emailSender } from './email/sender';

/*
 * How the core reaches the two channels not yet behind the channel port (server/channels/adapter.ts;
 * the chat apps and the texts are, and are sent through port-send.ts): the hosted inbox's `send` for
 * a turn's reply in an email thread (always here: SMTP_URL; without it a send fails, said so), and
 * the voice channel's `call` for an approved place_call, filled once by server/compose/channels.ts
 * (the dialler lives above this floor). Both answer with the one Delivery type every channel
 * reports; a channel with no outlet fails with `no provider configured for <channel>`, never a
 * pretend delivery.
 */

/**
 * One channel's sending half. Both answer rather than throw once the provider may have the
 * message: a throw is taken to mean nothing left, so after that the answer must be `unknown`.
 */
export type ChannelOutlet = {
  channel: ChannelName;
  /** A message of a conversation: `message.kind` says whether it answers a turn or is a notice. Absent on voice (a call's answer is spoken in it). */
  send?: (message: OutboundChannelMessage) => Promise<Delivery>;
  /** An approved place_call (voice): dialled once per dispatch version; `accepted` means the provider is dialling. */
  call?: (call: CallPlacement) => Promise<Delivery>;
};

const outlets = new Map<ChannelName, ChannelOutlet>([['email', emailSender]]);

/** A channel's outlet (filled from server/compose/channels.ts only). */
export function registerChannelOutlet(outlet: ChannelOutlet): void {
  outlets.set(outlet.channel, outlet);
}

export const outletFor = (channel: string): ChannelOutlet | null => outlets.get(channel as ChannelName) ?? null;

/** Places one approved call through the voice outlet; without one, it is refused with the reason. */
export async function placeCall(call: CallPlacement): Promise<Delivery> {
  const place = outletFor('voice')?.call;
  if (!place) return { state: 'failed', providerMessageId: null, reason: 'no provider configured for voice' };
  return place(call);
}
