import type { OutboundMail } from '@/server/mail/mailer';
import type { Connection, SendRequest } from '../adapter';

/*
 * The hosted inbox's mapping to mail (pure, tested without a server): a turn's answer in an email
 * thread, from the assistant's own address (the connection's), threaded as mail clients expect:
 * In-Reply-To the message it answers, References the thread's earlier messages, a `Re:` subject.
 * The Message-ID is the core's `ref`, chosen and recorded before the send, so a send whose answer
 * was lost is `unknown` and recognised later, never sent twice.
 */

/** `Re: <subject>` once, however deep the thread. */
export const replySubject = (subject: string | null | undefined) => {
  const s = (subject ?? '').trim();
  return /^re:/i.test(s) ? s : `Re: ${s || '(no subject)'}`;
};

/** A From header: the display name quoted, with what could end or break the quoting taken out. */
export const displayAddress = (name: string | null | undefined, address: string) => (name ? `"${name.replace(/["\\\r\n]/g, '')}" <${address}>` : address);

/** The mail a reply is, or why it cannot be one (nothing is sent then). */
export function replyMail(connection: Pick<Connection, 'externalId' | 'name'>, req: Pick<SendRequest, 'kind' | 'to' | 'subject' | 'text' | 'replyTo' | 'references' | 'ref'>): OutboundMail | { problem: string } {
  // Steward's own mail to the owner (notices) and approved mail (send_email) have their own senders; the port carries the hosted inbox's replies.
  if (req.kind !== 'reply') return { problem: `the hosted inbox sends replies through the port, not a ${req.kind}` };
  if (!req.ref) return { problem: 'no Message-ID was chosen before sending' };
  if (!req.to) return { problem: 'a reply by email must name who it answers' };
  return {
    from: displayAddress(connection.name, connection.externalId),
    to: [req.to],
    cc: [],
    bcc: [],
    subject: replySubject(req.subject),
    text: req.text,
    messageId: req.ref,
    inReplyTo: req.replyTo ?? null,
    // The Message-ID being sent is not one of its own references.
    references: (req.references ?? []).filter((r) => r !== req.ref),
    automated: false,
  };
}
