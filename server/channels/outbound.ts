/*
 * Outbound messages on chat and phone channels (spec document 4: send_message's platforms).
 * A provider (an SMS gateway, WhatsApp, iMessage relay, a Slack or Teams app acting as the
 * assistant) plugs in as an adapter for its platform. None ships configured: until one is
 * registered, a message for that platform is refused with the reason, never reported as sent.
 */

export const MESSAGE_PLATFORMS = ['sms', 'whatsapp', 'imessage', 'slack', 'teams'] as const;
export type MessagePlatform = (typeof MESSAGE_PLATFORMS)[number];

export type OutboundMessage = {
  platform: string;
  to: string;
  body: string;
  /** Stable per dispatch version: a provider that deduplicates takes it as its idempotency key. */
  idempotencyKey: string;
};

/** The same three answers as mail: taken by the provider (with its id), refused, or not known. */
export type MessageDelivery = { outcome: 'accepted'; providerMessageId: string | null } | { outcome: 'failed'; reason: string } | { outcome: 'unknown'; reason: string };

/**
 * A provider for one platform. `send` answers rather than throws: a throw is taken to mean nothing
 * left, so once the message may have reached the provider the answer must be `unknown`.
 */
export type ChannelAdapter = { platform: string; send: (message: OutboundMessage) => Promise<MessageDelivery> };

const adapters = new Map<string, ChannelAdapter>();

/** A deployment's provider for one platform (registered at start-up from the entry floor). */
export function registerChannelAdapter(adapter: ChannelAdapter | null, platform?: string): void {
  if (adapter) adapters.set(adapter.platform, adapter);
  else if (platform) adapters.delete(platform);
}

/** Sends through the platform's provider; with none configured the message is `failed` with the reason. */
export async function sendChannelMessage(message: OutboundMessage): Promise<MessageDelivery> {
  const adapter = adapters.get(message.platform);
  if (!adapter) return { outcome: 'failed', reason: `no provider configured for ${message.platform}` };
  return adapter.send(message);
}
