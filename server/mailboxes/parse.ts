import { simpleParser, type AddressObject, type HeaderLines } from 'mailparser';
import { automatedMarker } from '@/server/mail/checks/automated';

/*
 * A message fetched from a mailbox (Gmail's format=raw, Graph's $value): the parts the channel
 * layer needs, read with mailparser as the inbound SMTP listener reads mail.
 */

export type MailboxMail = {
  /** The Message-ID, with its angle brackets. */
  messageId: string | null;
  from: { address: string; name: string | null } | null;
  /** How many From addresses the message names: a proof holds for exactly one. */
  fromCount: number;
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  date: string | null;
  /** In-Reply-To, then References newest first. */
  threadRefs: string[];
  automated: boolean;
  attachments: Array<{ filename: string | null; contentType: string; content: Buffer }>;
  headerLines: HeaderLines;
};

const addresses = (v: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(v) ? v : v ? [v] : []).flatMap((o) => o.value).flatMap((a) => (a.address ? [a.address.toLowerCase()] : []));

const messageIds = (v: string | string[] | undefined) => (Array.isArray(v) ? v : v ? [v] : []).flatMap((s) => s.match(/<[^<>\s]+>/g) ?? []);

export async function parseMailboxMessage(raw: Buffer): Promise<MailboxMail> {
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  const senders = (parsed.from?.value ?? []).filter((a) => a.address);
  const first = senders[0];
  return {
    messageId: messageIds(parsed.messageId)[0] ?? null,
    from: first?.address ? { address: first.address.toLowerCase(), name: first.name || null } : null,
    fromCount: senders.length,
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.toISOString() : null,
    threadRefs: [...new Set([...messageIds(parsed.inReplyTo), ...messageIds(parsed.references).reverse()])],
    automated: automatedMarker(parsed.headerLines) !== null,
    attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType, content: a.content })),
    headerLines: parsed.headerLines,
  };
}
