import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { users } from '@/db/schema';
import { activeLineFor, registerLineFulfilled } from '@/server/channels/phone-lines';
import { twilioConfig } from '@/server/channels/twilio/config';
import { registerPhoneCodeSender } from '@/server/identifiers/verification';
import { sendText } from '@/server/channels/texts/send-text';
import { createNotice } from '@/server/notices/create';

/*
 * What the channels answer for the layers below that cannot import them: an identifier's SMS code
 * and a fulfilled phone line's notice. Everything else a channel does is asked of its adapter
 * through the port (server/channels/adapters.ts) and needs no wiring. The code sender reads
 * Twilio's configuration when it sends, so without it a code answers `not_configured` and nothing
 * is sent.
 */

/**
 * Texts: their chat replies, notices and send_message dispatches go through the channel port
 * (server/channels/texts/adapter.ts) and need no wiring; SMS codes and phone lines do.
 */
function wireTexts(): void {
  // SMS verification codes for phone identifiers.
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

  // A fulfilled phone-line request becomes a notice to its user.
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
}

/**
 * The chat apps and the texts are behind the port and need no wiring: whether a notice can reach
 * one is the port's answer (its adapter's `configured`, asked when the notice is made).
 */
export function wireChannels(): void {
  wireTexts();
}
