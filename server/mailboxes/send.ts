import type { Db } from '@/db/client';
import { mailboxSends, type MailboxProvider } from '@/db/schema';
import { ProviderHttpError } from '@/server/channels/providers';
import { composeMail } from '@/server/mail/mailer';
import { clientFor } from './client';
import { mailboxOfUser } from './store';
import { providerConfigured } from './sync';
import { MailboxAuthError, withAccess } from './tokens';

/*
 * Mail the user approved as theirs (email_as_user), sent from their connected mailbox through its
 * provider's API (Gmail users.messages.send; Graph: a draft from the MIME message, then send), so
 * it is in their Sent folder. The message is built once with Steward's Message-ID, which replies
 * name in In-Reply-To. The answer follows the dispatch rule (server/approvals/delivery.ts):
 * `accepted` only when the provider took it; `failed` when it certainly did not (a refusal, no
 * connection made, a draft never sent); `unknown` when it may have (the answer was lost, or the
 * provider failed after receiving it). Nothing here ever sends twice.
 */

export type MailToSend = {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string;
  /** The HTML alternative (multipart/alternative beside the text). */
  html?: string;
  messageId: string;
  inReplyTo?: string | null;
  references?: string[];
  /** The files the person approved, inside the one MIME message both providers take. */
  attachments?: Array<{ filename: string; contentType: string; content: Buffer }>;
};

/** What the dispatch records beside its Message-ID: the mailbox and the provider's id of the sent message. */
export type MailboxSendRecord = { accountId: string; provider: MailboxProvider; address: string; providerMessageId: string | null; internetMessageId: string };

export type MailboxSendResult = { outcome: 'accepted'; detail: string; record: MailboxSendRecord } | { outcome: 'failed'; reason: string } | { outcome: 'unknown'; reason: string };

const label = (p: MailboxProvider) => (p === 'gmail' ? 'Gmail' : 'Microsoft 365');

/** Built as the SMTP path builds mail (server/mail/mailer.ts composeMail), with the user's mailbox as From. */
async function build(from: string, mail: MailToSend): Promise<Buffer> {
  const node = composeMail({ ...mail, from });
  // The provider delivers to Bcc recipients from the header, and removes it from what they receive.
  node.keepBcc = true;
  return node.build();
}

/** A provider error as the dispatch's answer: a definite refusal fails; a lost or server-side failure may have sent it. */
function verdict(e: ProviderHttpError, provider: MailboxProvider): MailboxSendResult {
  const why = e.message.replace(/\s+/g, ' ').slice(0, 400);
  if (!e.reached) return { outcome: 'failed', reason: `${label(provider)} did not take the message: ${why}; nothing was sent` };
  if (e.status === null || e.status >= 500 || e.status === 408) {
    return { outcome: 'unknown', reason: `${label(provider)} did not confirm the send (${why}): it may or may not have been sent, so it was not sent again` };
  }
  return { outcome: 'failed', reason: `${label(provider)} refused the message: ${why}` };
}

/**
 * Sends from the user's connected mailbox; null when they have none (the caller keeps its SMTP
 * path). A mailbox that needs reconnecting, or whose provider is no longer configured, fails the
 * send rather than sending from elsewhere: the user approved mail from their own mailbox.
 */
export async function sendFromUserMailbox(db: Db, owner: { accountId: string; userId: string }, mail: MailToSend): Promise<MailboxSendResult | null> {
  const mailbox = await mailboxOfUser(db, owner.userId);
  if (!mailbox || mailbox.accountId !== owner.accountId) return null;
  const name = label(mailbox.provider);
  if (!providerConfigured(mailbox.provider)) return { outcome: 'failed', reason: `no provider configured for ${mailbox.provider}: nothing was sent` };
  if (mailbox.authError) return { outcome: 'failed', reason: `The user's ${name} mailbox must be connected again: nothing was sent` };
  let raw: Buffer;
  try {
    raw = await build(mailbox.address, mail);
  } catch (e) {
    return { outcome: 'failed', reason: `The message could not be built: ${(e as Error).message}` };
  }
  const accepted = (providerMessageId: string | null): MailboxSendResult => ({
    outcome: 'accepted',
    record: { accountId: mailbox.accountId, provider: mailbox.provider, address: mailbox.address, providerMessageId, internetMessageId: mail.messageId },
    detail: `sent from the user's ${name} mailbox ${mailbox.address}${providerMessageId ? ` (${name} message id ${providerMessageId})` : ''}`,
  });
  try {
    const sent = await withAccess(db, mailbox, (token) => clientFor(mailbox, token).send(raw));
    return accepted(sent.providerMessageId);
  } catch (e) {
    if (e instanceof MailboxAuthError) return { outcome: 'failed', reason: `${e.message}: nothing was sent` };
    // The provider said it took the message, in an answer not shaped as documented: sent, id unknown.
    if (e instanceof ProviderHttpError && e.reached && e.status !== null && e.status >= 200 && e.status < 300) return accepted(null);
    if (e instanceof ProviderHttpError) return verdict(e, mailbox.provider);
    throw e;
  }
}

/**
 * A send whose answer was lost, looked for in the user's Sent folder by its Message-ID: found, it
 * was sent; not found (not there, not indexed yet, no mailbox), null: the caller keeps `unknown`.
 */
export async function findSentInUserMailbox(db: Db, owner: { accountId: string; userId: string }, messageId: string): Promise<Extract<MailboxSendResult, { outcome: 'accepted' }> | null> {
  const mailbox = await mailboxOfUser(db, owner.userId);
  if (!mailbox || mailbox.accountId !== owner.accountId || mailbox.authError || !providerConfigured(mailbox.provider)) return null;
  try {
    const id = await withAccess(db, mailbox, (token) => clientFor(mailbox, token).findSent(messageId));
    if (!id) return null;
    const name = label(mailbox.provider);
    return {
      outcome: 'accepted',
      record: { accountId: mailbox.accountId, provider: mailbox.provider, address: mailbox.address, providerMessageId: id, internetMessageId: messageId },
      detail: `found in the Sent folder of the user's ${name} mailbox after its answer was lost (${name} message id ${id})`,
    };
  } catch {
    return null;
  }
}

/** Kept with the dispatch's outcome (the record step): the provider's id of what was sent. */
export async function recordMailboxSend(db: Db, dispatchId: string, record: MailboxSendRecord): Promise<void> {
  await db
    .insert(mailboxSends)
    .values({ dispatchId, ...record })
    .onConflictDoNothing();
}
