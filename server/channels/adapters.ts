import type { CallingAdapter, ChannelAdapter, SendingAdapter, TextWebhook } from './adapter';
import { emailAdapter } from './email/adapter';
import { slackAdapter } from './slack/adapter';
import { teamsAdapter } from './teams/adapter';
import { telegramAdapter } from './telegram/adapter';
import { textAdapters } from './texts/adapter';
import { textWebhooks } from './texts/webhook';
import { voiceAdapter } from './voice/adapter';

/*
 * The channel adapters behind the port (server/channels/adapter.ts), one line each. The core
 * (server/messaging/port-*.ts, replies, approvals, reply readers, send_message) asks this list,
 * and the generic webhook endpoint serves each of them at /api/channels/{channel}/webhooks/{key}
 * (an adapter whose webhook paths the spec fixes is served there instead: Slack's
 * /slack/events/{appId} and /slack/interactivity/{appId}, Teams' /teams/messages). The texts are
 * its sending half and their providers' webhooks (served by messaging/texts-webhooks.ts); voice is
 * the calls capability (its webhooks: messaging/voice-webhooks.ts). The hosted inbox is a sending
 * half for its replies (its inbound half is the SMTP server, server/mail/).
 */
export const channelAdapters: readonly ChannelAdapter[] = [slackAdapter, teamsAdapter, telegramAdapter];

/** Every channel the core sends on through the port: the whole adapters, the texts' sending halves, and the hosted inbox's replies. */
export const sendingAdapters: readonly SendingAdapter[] = [...channelAdapters, ...textAdapters, emailAdapter];

/** The texts' providers' webhooks (Twilio's serves SMS and WhatsApp, Sendblue's iMessage), each at the path the spec fixes. */
export const textProviderWebhooks: readonly TextWebhook[] = textWebhooks;

/** The channels that place calls (place_call's approved dispatches). */
export const callingAdapters: readonly CallingAdapter[] = [voiceAdapter];

export const callingAdapter = (channel: string): CallingAdapter | null => callingAdapters.find((a) => a.channel === channel) ?? null;

export const portAdapter = (channel: string | null | undefined): ChannelAdapter | null => channelAdapters.find((a) => a.channel === channel) ?? null;

/** The channel's sending half behind the port, or null (voice: callingAdapter). */
export const portSender = (channel: string | null | undefined): SendingAdapter | null => sendingAdapters.find((a) => a.channel === channel) ?? null;

/** The thread a message reference (`<thread>#<id>`) belongs to. */
export const threadOfRef = (messageRef: string | null | undefined): string | null => (messageRef?.includes('#') ? messageRef.split('#')[0]! : null);
