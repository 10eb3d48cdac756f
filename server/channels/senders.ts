import type { ChannelName, ChannelSenderAdapter } from './message';
import { emailSender } from './email/sender';

/*
 * The sending half of each channel adapter the layer can reach. The hosted inbox is always here
 * (SMTP_URL; without it a send fails, said so); the other channels register theirs when their
 * provider is configured. A channel with no sender fails a send with `no provider configured for
 * <channel>`, never a pretend delivery.
 */

const senders = new Map<ChannelName, ChannelSenderAdapter>([['email', emailSender]]);

export function registerChannelSender(adapter: ChannelSenderAdapter): void {
  senders.set(adapter.channel, adapter);
}

export const senderFor = (channel: string): ChannelSenderAdapter | null => senders.get(channel as ChannelName) ?? null;
