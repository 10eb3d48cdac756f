import { deliverMail } from '@/server/mail/mailer';
import type { Delivery, OutboundChannelMessage } from '../message';

/*
 * The hosted inbox's sending half (issue: the channel layer): a message into an email thread,
 * from the assistant's own address, through SMTP_URL (server/mail/mailer.ts). Threaded as mail
 * clients expect: In-Reply-To the message it answers, References the thread, a `Re:` subject.
 * The Message-ID is chosen by the caller before sending (recorded as intent), so a send whose
 * answer was lost is `unknown` and recognised later, never sent twice.
 */

/** `Re: <subject>` once, however deep the thread. */
export const replySubject = (subject: string | null | undefined) => {
  const s = (subject ?? '').trim();
  return /^re:/i.test(s) ? s : `Re: ${s || '(no subject)'}`;
};

const display = (name: string | null | undefined, address: string) => (name ? `"${name.replace(/["\\\r\n]/g, '')}" <${address}>` : address);

/** The hosted inbox's reply sender (messaging/replies.ts asks it for a turn's answer in an email thread). */
export const emailSender = {
  channel: 'email' as const,
  async send(message: OutboundChannelMessage): Promise<Delivery> {
    const messageId = message.providerMessageId ?? null;
    if (!messageId) return { state: 'failed', providerMessageId: null, reason: 'no Message-ID was chosen before sending' };
    const outcome = await deliverMail({
      from: display(message.fromName, message.from),
      to: message.to,
      cc: message.cc ?? [],
      bcc: [],
      subject: message.subject ?? '',
      text: message.text,
      messageId,
      inReplyTo: message.inReplyTo ?? null,
      references: message.references ?? [],
      // A notice is Steward's own mail (RFC 3834 Auto-Submitted), so an auto-responder does not answer it.
      automated: message.kind === 'notice',
    });
    if (outcome.outcome === 'accepted') return { state: 'accepted', providerMessageId: messageId };
    return { state: outcome.outcome, providerMessageId: messageId, reason: outcome.reason };
  },
};
