import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants } from '@/db/schema';
import { deliverMail } from '@/server/mail/mailer';
import type { Connection, SendingAdapter } from '../adapter';
import { failedDelivery } from '../message';
import { replyMail } from './transform';

/*
 * The hosted inbox's sending half of the channel port (adapter.ts): a chat turn's answer in an
 * email thread, from the assistant's own address, through SMTP_URL (server/mail/mailer.ts). Its
 * inbound half is the SMTP server (server/mail/), which proves senders by DMARC rather than by a
 * webhook, so the inbox is not a whole ChannelAdapter. Only replies go this way: Steward's notices
 * by email are its own mail (notices/deliver.ts: HTML, a sign-in-free link, Auto-Submitted, the
 * fallback of every other channel) and approved mail is send_email's (approvals/delivery.ts).
 */
export const emailAdapter: SendingAdapter<'email'> = {
  channel: 'email',
  label: 'email',
  capabilities: {},
  async connectionFor(db: Db, assistantId: string): Promise<Connection | null> {
    const [row] = await db.select({ accountId: assistants.accountId, email: assistants.email, name: assistants.name }).from(assistants).where(eq(assistants.id, assistantId));
    if (!row?.email) return null;
    return { id: assistantId, channel: 'email', accountId: row.accountId, assistantId, externalId: row.email, name: row.name };
  },
  async send(_db, req) {
    const mail = replyMail(req.connection, req);
    if ('problem' in mail) return failedDelivery(mail.problem);
    const outcome = await deliverMail(mail);
    if (outcome.outcome === 'accepted') return { state: 'accepted', providerMessageId: mail.messageId };
    return { state: outcome.outcome, providerMessageId: mail.messageId, reason: outcome.reason };
  },
  // Mail is read by its recipients, which the core chooses (messaging/reply-readers.ts): a thread alone does not say who they are.
  audienceOf: () => ({ kind: 'room', where: 'a mail thread' }),
  directThread: (person) => person.userId,
};
