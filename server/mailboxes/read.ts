import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { ProviderHttpError } from '@/server/channels/providers';
import { AppError, badRequest, notFound } from '@/server/http/errors';
import { clientFor, type MailboxClient } from './client';
import { parseMailboxMessage } from './parse';
import { mailboxOfUser } from './store';
import { providerConfigured } from './sync';
import { MailboxAuthError, withAccess } from './tokens';

/*
 * Reading the acting user's own connected mailbox (the agent's search_mail and read_mail): only
 * theirs, through its provider. Reads change nothing, so they are never staged; what they return
 * is outside content, which the runtime wraps and records as taint (agent/runtime/taint.ts).
 */

export const MAX_TEXT_CHARS = 20_000;

async function withMailbox<T>(db: Db, actor: UserActor, use: (client: MailboxClient, address: string) => Promise<T>): Promise<T> {
  const mailbox = await mailboxOfUser(db, actor.user.id);
  if (!mailbox) throw badRequest('The user has not connected a mailbox (Gmail or Microsoft 365): there is no mail to read. They can connect one in their settings.', {}, 'no_mailbox');
  if (!providerConfigured(mailbox.provider)) throw badRequest(`no provider configured for ${mailbox.provider}`, {}, 'mailbox_unavailable');
  if (mailbox.authError) throw badRequest('The user’s mailbox must be connected again before it can be read.', {}, 'mailbox_reconnect_needed');
  try {
    return await withAccess(db, mailbox, (token) => use(clientFor(mailbox, token), mailbox.address));
  } catch (e) {
    if (e instanceof MailboxAuthError) throw badRequest('The user’s mailbox must be connected again before it can be read.', {}, 'mailbox_reconnect_needed');
    if (e instanceof ProviderHttpError && (e.status === 404 || e.status === 400)) throw notFound('Message');
    if (e instanceof ProviderHttpError) throw new AppError(502, 'mailbox_unavailable', `The mailbox could not be read right now: ${e.message}`);
    throw e;
  }
}

export async function searchUserMail(db: Db, actor: UserActor, input: { query: string; limit?: number }) {
  return withMailbox(db, actor, async (client, address) => {
    const messages = await client.search(input.query, input.limit ?? 10);
    return { mailbox: address, count: messages.length, messages };
  });
}

export async function readUserMail(db: Db, actor: UserActor, input: { messageId: string }) {
  return withMailbox(db, actor, async (client, address) => {
    const { raw } = await client.read(input.messageId);
    const mail = await parseMailboxMessage(raw);
    const text = mail.text.length > MAX_TEXT_CHARS ? `${mail.text.slice(0, MAX_TEXT_CHARS)}\n[message truncated]` : mail.text;
    return {
      mailbox: address,
      messageId: input.messageId,
      internetMessageId: mail.messageId,
      from: mail.from ? (mail.from.name ? `${mail.from.name} <${mail.from.address}>` : mail.from.address) : null,
      to: mail.to,
      cc: mail.cc,
      subject: mail.subject,
      date: mail.date,
      text,
      attachments: mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, size: a.content.length })),
    };
  });
}
