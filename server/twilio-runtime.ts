import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { sharedDatabase, type Db } from '@/db/client';
import { textChannels, users, type TextChannel } from '@/db/schema';
import { sendblueConfig } from '@/server/channels/imessage/sendblue';
import { registerChannelAdapter } from '@/server/channels/outbound';
import { activeLineFor, registerLineFulfilled } from '@/server/channels/phone-lines';
import { twilioConfig } from '@/server/channels/twilio/config';
import { registerPhoneCodeSender } from '@/server/identifiers/verification';
import { createNotice, markNoticeChannelReachable } from '@/server/notices/create';
import { registerChannelSender } from '@/server/channels/senders';
import { textChannelSender, textDispatchAdapter } from '@/server/messaging/text-sender';
import { sendText } from '@/server/messaging/texts-outbound';
// Calls (place_call) through Twilio's Calls API.
import './voice-runtime';

/*
 * Composition (entry floor): the text channels plugged into the layers below that cannot import
 * them. Every adapter reads its provider's configuration when it sends, so a provider whose
 * credentials are unset answers `no provider configured for <channel>` and nothing is sent:
 * - the channel layer's senders (chat replies, notices) and the dispatch adapters of
 *   send_message, for sms, whatsapp (Twilio) and imessage (Sendblue);
 * - notices may go to a text channel whose provider is configured when the process starts;
 * - SMS verification codes for phone identifiers (the identifiers area's hook);
 * - a fulfilled phone-line request becomes a notice to its user.
 * Imported by server/task-hooks.ts, which every serving process loads.
 */

const db = (): Db => sharedDatabase().db;
const TEXT_CHANNELS: readonly TextChannel[] = textChannels;

for (const channel of TEXT_CHANNELS) {
  registerChannelSender(textChannelSender(channel, db));
  registerChannelAdapter(textDispatchAdapter(channel, db));
}

if (twilioConfig()) {
  markNoticeChannelReachable('sms');
  markNoticeChannelReachable('whatsapp');
}
if (sendblueConfig()) markNoticeChannelReachable('imessage');

registerPhoneCodeSender({
  configured: () => twilioConfig() !== null,
  async send(database, code) {
    const config = twilioConfig();
    if (!config) return { status: 'not_configured', reason: 'no SMS provider is configured on this deployment' };
    // From the user's own assistant's line when it has one, else Steward's sender.
    const [user] = await database.select({ assistantId: users.primaryAssistantId }).from(users).where(eq(users.id, code.userId));
    const from = (user?.assistantId ? await activeLineFor(database, user.assistantId, 'sms') : null) ?? config.smsFrom;
    if (!from) return { status: 'not_configured', reason: 'there is no number to send codes from (STEWARD_TWILIO_SMS_FROM, or a phone line of the user’s assistant)' };
    const delivery = await sendText(database, {
      accountId: code.accountId,
      channel: 'sms',
      from,
      to: code.to,
      body: code.text,
      purpose: 'code',
      intentKey: `code:${code.identifierId}:${randomUUID()}`,
    });
    if (delivery.state === 'failed' || delivery.state === 'unknown') return { status: 'failed', reason: delivery.reason };
    return { status: 'sent' };
  },
});

registerLineFulfilled(async (tx, line) => {
  const list = line.channels.join(', ');
  await createNotice(tx, {
    accountId: line.accountId,
    userId: line.userId,
    kind: 'phone_line',
    dedupeKey: `phone_line:${line.requestId}`,
    subject: `Your assistant's number is ready: ${line.number}`,
    text: `Your assistant can now be reached at ${line.number} (${list}). Text it from your verified number to talk to it.`,
    linkPath: '/',
  });
});
