import type { ChannelAdapter } from './adapter';
import { slackAdapter } from './slack/adapter';
import { teamsAdapter } from './teams/adapter';
import { telegramAdapter } from './telegram/adapter';

/*
 * The channel adapters behind the port (server/channels/adapter.ts), one line each. The core
 * (server/messaging/port-*.ts, replies, approvals, reply readers, send_message) asks this list,
 * and the generic webhook endpoint serves each of them at /api/channels/{channel}/webhooks/{key}
 * (an adapter whose webhook paths the spec fixes is served there instead: Slack's
 * /slack/events/{appId} and /slack/interactivity/{appId}, Teams' /teams/messages). Channels that
 * predate the port (email, texts, voice) are wired as before until they move behind it.
 */
export const channelAdapters: readonly ChannelAdapter[] = [slackAdapter, teamsAdapter, telegramAdapter];

export const portAdapter = (channel: string | null | undefined): ChannelAdapter | null => channelAdapters.find((a) => a.channel === channel) ?? null;

/** The thread a message reference (`<thread>#<id>`) belongs to. */
export const threadOfRef = (messageRef: string | null | undefined): string | null => (messageRef?.includes('#') ? messageRef.split('#')[0]! : null);
