import type { ChatMessageRow } from '@/db/schema';
import type { ChannelName, chatAppChannels } from '@/db/schema/channel-names';

export { channelNames, type ChannelName } from '@/db/schema/channel-names';
type ChatApp = (typeof chatAppChannels)[number];

/*
 * The one message form every channel adapter speaks (issue: the channel layer). An adapter
 * (server/channels/<channel>/) verifies and parses what its provider sends into an
 * InboundChannelMessage, sends what the core asks into a thread (adapter.ts: SendRequest) and reports a Delivery;
 * it never decides who the sender is or where the message goes: the layer above it does
 * (server/messaging/), from verified identifiers only.
 */


export type ChannelSender = {
  /** The kind of identifier the channel knows people by. */
  kind: 'email' | 'phone' | ChatApp;
  value: string;
  name?: string | null;
  /**
   * Whether the channel proves the sender owns `value` (email: DMARC, or SPF/DKIM aligned with the
   * From domain; a signed provider webhook for a phone number). Only a proven sender can be matched
   * to a user; an unproven one is an unknown sender whatever address it shows.
   */
  proven: boolean;
};

export type ChannelAttachment = { filename: string | null; contentType: string; content: Buffer };

export type InboundChannelMessage = {
  channel: ChannelName;
  /** The chat platform a conversation on this channel has (`email` for the hosted inbox and the user's mailbox). */
  platform: ChatMessageRow['platform'];
  accountId: string;
  /** The assistant it reached: the address or number it was sent to, or the one running the user's mailbox. */
  assistantId: string;
  sender: ChannelSender;
  /**
   * The sender as the chat platform knows them (Slack, Teams, Telegram user id), when the channel
   * proves it: a signed event from a workspace the assistant's app is installed in, a token-verified
   * activity from a connected tenant, a bot webhook carrying its secret. Used to match someone a
   * task waits on by that id; never to name the owner (identify.ts reads `sender` only).
   */
  person?: { provider: ChatApp; workspaceId: string; userId: string } | null;
  /** Who else is in the thread (email To and Cc, a group's members), lower-cased. */
  to: string[];
  cc: string[];
  /** The provider's id of this message (an email's Message-ID with its angle brackets). */
  providerMessageId: string | null;
  /** Earlier messages of the thread this one answers, nearest first (In-Reply-To, then References newest first). */
  threadRefs: string[];
  /**
   * The conversation this message belongs to when the channel has one of its own (a phone number's
   * SMS thread, a Slack DM or thread): every message with the same key is the same chat. Unset
   * (email): the thread is found from `threadRefs`, and a message that answers nothing starts one.
   */
  threadKey?: string | null;
  subject: string | null;
  text: string;
  attachments: ChannelAttachment[];
  /** Machine-written (Auto-Submitted, a list, a bounce): never answered automatically. */
  automated: boolean;
  /** Where the stored original lives (inbound_messages id for mail), for the record. */
  storedId?: string | null;
};

/** What became of an outbound message: never `accepted` unless the provider took it. */
export type Delivery =
  | { state: 'accepted' | 'delivered'; providerMessageId: string | null }
  | { state: 'failed'; providerMessageId: string | null; reason: string }
  | { state: 'unknown'; providerMessageId: string | null; reason: string };

/** A message that did not go out, and why. */
export const failedDelivery = (reason: string): Delivery => ({ state: 'failed', providerMessageId: null, reason });

