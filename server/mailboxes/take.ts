import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, mailboxMessages, users, type MailboxRow } from '@/db/schema';
import type { InboundChannelMessage } from '@/server/channels/message';
import { ProviderHttpError } from '@/server/channels/providers';
import { logger } from '@/server/logger';
import { receiveMailboxMessage, type MailboxOutcome } from './inbound';
import type { MailboxClient } from './client';
import { parseMailboxMessage } from './parse';
import { proveMailboxSender } from './sender-proof';

/*
 * One message a poll or a notification found: fetched whole from the provider, read, its sender
 * judged from the provider's Authentication-Results, and handed to the channel layer as an
 * InboundChannelMessage (channel gmail or outlook, platform email). The user's own outgoing mail
 * (Sent, Drafts, or From the mailbox's own address) is not new mail and is only recorded.
 */

/** The ids not taken yet (each message is fetched once). */
export async function unseen(db: Db, mailboxId: string, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const seen = await db
    .select({ id: mailboxMessages.providerMessageId })
    .from(mailboxMessages)
    .where(and(eq(mailboxMessages.mailboxId, mailboxId), inArray(mailboxMessages.providerMessageId, unique)));
  const taken = new Set(seen.map((r) => r.id));
  return unique.filter((id) => !taken.has(id));
}

/** The assistant that runs the user's mailbox: their primary one, else one of their own. */
async function runningAssistant(db: Db, userId: string): Promise<string | null> {
  const [user] = await db.select({ primary: users.primaryAssistantId }).from(users).where(eq(users.id, userId));
  if (user?.primary) {
    const [a] = await db.select({ id: assistants.id }).from(assistants).where(and(eq(assistants.id, user.primary), isNull(assistants.deletedAt)));
    if (a) return a.id;
  }
  const [own] = await db
    .select({ id: assistants.id })
    .from(assistants)
    .where(and(eq(assistants.userId, userId), eq(assistants.scope, 'user'), isNull(assistants.deletedAt)))
    .limit(1);
  return own?.id ?? null;
}

async function recordSkipped(db: Db, mailbox: MailboxRow, providerId: string, reason: string, facts: { messageId?: string | null; from?: string | null; subject?: string | null } = {}) {
  await db
    .insert(mailboxMessages)
    .values({
      accountId: mailbox.accountId,
      mailboxId: mailbox.id,
      userId: mailbox.userId,
      providerMessageId: providerId,
      internetMessageId: facts.messageId ?? null,
      fromAddress: facts.from ?? null,
      subject: facts.subject?.slice(0, 1000) ?? null,
      status: 'skipped',
      reason: reason.slice(0, 500),
    })
    .onConflictDoNothing();
}

const OWN_LABELS = ['SENT', 'DRAFT'];

export async function takeMessage(db: Db, mailbox: MailboxRow, client: MailboxClient, providerId: string): Promise<MailboxOutcome | { status: 'skipped'; reason: string }> {
  let fetched: { raw: Buffer; labelIds: string[] };
  try {
    fetched = await client.read(providerId);
  } catch (e) {
    // Deleted or moved before Steward got to it: nothing to take.
    if (e instanceof ProviderHttpError && e.status === 404) {
      await recordSkipped(db, mailbox, providerId, 'gone');
      return { status: 'skipped', reason: 'gone' };
    }
    throw e;
  }
  let mail: Awaited<ReturnType<typeof parseMailboxMessage>>;
  try {
    mail = await parseMailboxMessage(fetched.raw);
  } catch (e) {
    logger.warn({ err: e, mailboxId: mailbox.id, providerId }, 'mailbox: a message could not be read');
    await recordSkipped(db, mailbox, providerId, `unreadable: ${(e as Error).message}`);
    return { status: 'skipped', reason: 'unreadable' };
  }
  const facts = { messageId: mail.messageId, from: mail.from?.address ?? null, subject: mail.subject };
  const own = fetched.labelIds.some((l) => OWN_LABELS.includes(l)) || mail.from?.address === mailbox.address.toLowerCase();
  if (own || !mail.from) {
    const reason = own ? 'own_mail' : 'no_sender';
    await recordSkipped(db, mailbox, providerId, reason, facts);
    return { status: 'skipped', reason };
  }
  const assistantId = await runningAssistant(db, mailbox.userId);
  if (!assistantId) {
    await recordSkipped(db, mailbox, providerId, 'no_assistant', facts);
    return { status: 'skipped', reason: 'no_assistant' };
  }
  const proof = await proveMailboxSender(mailbox.provider, mail.headerLines, mail.from, mail.fromCount);
  const message: InboundChannelMessage = {
    channel: mailbox.provider,
    platform: 'email',
    accountId: mailbox.accountId,
    assistantId,
    sender: { kind: 'email', value: mail.from.address, name: mail.from.name, proven: proof.verified },
    to: mail.to,
    cc: mail.cc,
    providerMessageId: mail.messageId,
    threadRefs: mail.threadRefs,
    subject: mail.subject,
    text: mail.text,
    attachments: mail.attachments,
    automated: mail.automated,
    storedId: null,
  };
  return receiveMailboxMessage(db, message, providerId, { mailboxId: mailbox.id, userId: mailbox.userId, provider: mailbox.provider, dmarc: proof.dmarc, senderUnproven: proof.unproven });
}
