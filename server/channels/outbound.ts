import { messagePlatforms } from '@/db/schema/channel-names';

/*
 * Outbound messages on chat and phone channels (spec document 4: send_message's platforms).
 * A provider (Twilio for SMS and WhatsApp, Sendblue for iMessage, a Slack or Teams app acting as
 * the assistant) plugs in as an adapter for its platform, registered from the entry floor when its
 * credentials are set (server/compose/channels.ts). Until one is registered, a message for that
 * platform is refused with the reason, never reported as sent.
 */

/** `telegram`: an adapter of the channel port (adapters.ts), sent through it rather than a registered adapter here. */
export const MESSAGE_PLATFORMS = messagePlatforms;
export type MessagePlatform = (typeof MESSAGE_PLATFORMS)[number];

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
  /** Files the approved message carries, as bytes the adapter uploads with it: Slack, iMessage (Sendblue's upload). */
  files?: Array<{ filename: string; contentType: string; content: Buffer }>;
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
