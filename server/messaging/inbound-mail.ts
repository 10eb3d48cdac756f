import { sendMail } from '@/server/mail/mailer';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { sentEmailsByMessageId } from '@/db/queries/sent-messages';
import { assistants, inboundMessages, type InboundMessageStatus } from '@/db/schema';
import { logger } from '@/server/logger';
import { InboundRefusal, inboundListenerConfig, startInboundListener, type InboundListener, type InboundMail } from '@/server/mail/inbound-listener';
import { attachReply } from '@/server/tasks/inbound-reply';
import type { InboundChannelMessage } from '@/server/channels/message';
import { startQueuedTurns, type QueuedChatTurn } from '@/server/chats/turn-queue';
import { mayAutoReply } from '@/server/mail/checks/automated';
import { routeInbound } from '@/server/messaging/inbound';
import { ingestWorkflowEvent } from '@/server/workflows/triggers/events';

/*
 * The inbound SMTP listener (kernel) routes mail here, to the areas it reaches: scripts/start.ts
 * starts it with the process's database.
 * Mail is accepted for the addresses of existing assistants; the listener has already refused
 * what the drop rules refuse (mail/checks/drop-rules.ts). Each message is kept in
 * inbound_messages, once per receiving assistant, before the SMTP server answers 250, with its
 * verdicts, whether its From address is proven, its spam and virus checks and its
 * Auto-Submitted mark: a proven reply to Steward's mail from a person a task waits on attaches
 * to that task and wakes it (tasks/inbound-reply.ts), an unproven one is `unverified` and only
 * noted on the task; other mail to a user's own assistant opens or continues the owner's email
 * chat with the sender (chats/email.ts); the rest stays `unmatched`; mail whose DMARC failed is
 * `quarantined`. Nothing accepted is dropped.
 */

type Assistant = { id: string; accountId: string };

/** The assistants an address belongs to (an address is unique per account; deleted assistants' addresses are retired). */
async function assistantsAt(db: Db, address: string): Promise<Assistant[]> {
  return db
    .select({ id: assistants.id, accountId: assistants.accountId })
    .from(assistants)
    .where(and(sql`lower(${assistants.email}) = ${address.toLowerCase()}`, isNull(assistants.deletedAt)));
}

/** In-Reply-To first, then References newest first: the nearest message of the thread decides. */
const referencesOf = (mail: InboundMail) => [...new Set([...mail.inReplyTo, ...[...mail.references].reverse()])];

/**
 * The one assistant each recipient address stands for. Addresses are unique per account only, so
 * one address may be held in several accounts: a reply settles it (the thread names mail that one
 * of them sent); otherwise the message is refused with a bounce rather than handed to an account
 * it may not be meant for. Decided before anything is stored: the message is delivered whole or not at all.
 */
async function routes(db: Db, mail: InboundMail): Promise<Array<{ recipient: string; assistant: Assistant }>> {
  const out: Array<{ recipient: string; assistant: Assistant }> = [];
  for (const recipient of new Set(mail.envelope.rcptTo)) {
    let holders = await assistantsAt(db, recipient);
    if (holders.length > 1) {
      const senders = new Set((await sentEmailsByMessageId(db, referencesOf(mail))).map((s) => s.assistantId));
      holders = holders.filter((a) => senders.has(a.id));
      if (holders.length !== 1) {
        logger.warn({ recipient, messageId: mail.messageId }, 'inbound mail: the address is held in more than one account; refused');
        throw new InboundRefusal(550, `5.1.1 <${recipient}>: this address is ambiguous here (held by more than one account); the message was not delivered`);
      }
    }
    // An assistant deleted between RCPT TO and the end of DATA: refused like an unknown address.
    if (!holders.length) throw new InboundRefusal(550, `5.1.1 <${recipient}>: no such mailbox here`);
    out.push({ recipient, assistant: holders[0] });
  }
  return out;
}

async function deliver(db: Db, mail: InboundMail, recipient: string, assistant: Assistant): Promise<void> {
  const turns: QueuedChatTurn[] = [];
  let refusal: { to: string; subject: string; text: string } | null = null;
  await db.transaction(async (tx) => {
    const [stored] = await tx
      .insert(inboundMessages)
      .values({
        accountId: assistant.accountId,
        assistantId: assistant.id,
        recipient,
        messageId: mail.messageId,
        inReplyTo: mail.inReplyTo,
        references: mail.references,
        fromAddress: mail.from.address,
        fromName: mail.from.name,
        toAddresses: mail.to,
        ccAddresses: mail.cc,
        subject: mail.subject,
        textBody: mail.text,
        htmlBody: mail.html,
        attachments: mail.attachments.map(({ filename, contentType, size }) => ({ filename, contentType, size })),
        mailFrom: mail.envelope.mailFrom,
        remoteIp: mail.client.ip,
        helo: mail.client.helo,
        sizeBytes: mail.sizeBytes,
        spf: mail.auth.spf.result,
        dkim: mail.auth.dkim.result,
        dmarc: mail.auth.dmarc.result,
        auth: mail.auth,
        senderVerified: mail.senderVerified,
        checks: mail.checks,
        autoSubmitted: mail.autoSubmitted,
      })
      .onConflictDoNothing()
      .returning({ id: inboundMessages.id });
    // The same message delivered again (the sender never saw our 250): kept and acted on once already.
    if (!stored) {
      logger.info({ messageId: mail.messageId, assistantId: assistant.id }, 'inbound mail: duplicate delivery ignored');
      return;
    }
    const reply = await attachReply(tx, {
      accountId: assistant.accountId,
      assistantId: assistant.id,
      from: mail.from,
      subject: mail.subject,
      text: mail.text,
      references: referencesOf(mail),
      dmarc: mail.auth.dmarc.result,
      senderVerified: mail.senderVerified,
      senderUnproven: mail.senderUnproven,
    });
    // DMARC failed: the From address is not the sender's; kept and flagged, never handed on as theirs.
    let result: { status: InboundMessageStatus; reason: string | null; taskId: string | null; activityId: string | null; woke?: boolean } =
      mail.auth.dmarc.result === 'fail' ? { ...reply, status: 'quarantined' as const, reason: 'dmarc_fail' } : reply;
    // Mail that answers no waiting task goes where the channel layer says: the owner's own thread
    // (a chat turn answers it by mail) or a task they answer; anyone else's is kept in the owner's
    // chat with them, and talkToStrangers decides whether a held answer is drafted.
    if (result.status === 'unmatched') {
      // A reply in a task's thread from someone it does not wait on stays apart from that task, and starts no conversation of its own.
      const inTaskThread = result.taskId !== null;
      const routed = await routeInbound(tx, channelMessage(mail, assistant, stored.id), { inTaskThread });
      turns.push(...routed.turns);
      if (routed.refusal) refusal = { to: mail.from.address, subject: `Re: ${mail.subject || 'your message'}`.slice(0, 300), text: routed.refusal };
      if (routed.status !== 'unmatched' || routed.reason !== 'no_assistant') {
        result = inTaskThread && routed.status === 'chat' ? { ...result, status: 'chat', activityId: routed.activityId } : { status: routed.status, reason: routed.reason, taskId: routed.taskId, activityId: routed.activityId };
      }
      // email.received workflow triggers of the owner (and the account's app-wide workflows) hear of mail from others.
      if (routed.external) {
        await ingestWorkflowEvent(tx, {
          accountId: assistant.accountId,
          userId: routed.external.userId,
          type: 'email.received',
          id: mail.messageId ?? stored.id,
          data: {
            from: mail.from.address,
            fromName: mail.from.name,
            senderVerified: mail.senderVerified,
            subject: mail.subject,
            text: mail.text.slice(0, 4_000),
            chatId: routed.external.chatId,
            assistantId: assistant.id,
          },
        });
      }
    }
    await tx
      .update(inboundMessages)
      .set({ status: result.status, reason: result.reason, taskId: result.taskId, activityId: result.activityId })
      .where(eq(inboundMessages.id, stored.id));
    const log = { inboundMessageId: stored.id, assistantId: assistant.id, messageId: mail.messageId, from: mail.from.address, taskId: result.taskId, reason: result.reason };
    if (result.status === 'attached') logger.info({ ...log, woke: result.woke }, 'inbound mail: reply attached to its task');
    else if (result.status === 'chat') logger.info({ ...log, chatMessageId: result.activityId }, 'inbound mail: added to the email chat with its sender');
    else if (result.status === 'quarantined') logger.warn({ ...log, dmarc: mail.auth.dmarc }, 'inbound mail: DMARC failed, message quarantined');
    else if (result.status === 'unverified') logger.warn({ ...log, unproven: mail.senderUnproven }, 'inbound mail: a reply whose sender is not proven was kept, not attached');
    else logger.info(log, 'inbound mail: kept unmatched');
  });
  // The owner's message is answered once it is stored for good.
  await startQueuedTurns(db, turns);
  // An inactive assistant's sender is told (inbound.ts decides whether), from Steward's own address as an automated message.
  const told = refusal as { to: string; subject: string; text: string } | null;
  if (told) await sendMail(db, { accountId: assistant.accountId, to: told.to, subject: told.subject, text: told.text }).catch((err: unknown) => logger.warn({ err }, 'inbound mail: the refusal could not be sent'));
}

/** The message as the channel layer reads it (server/channels/message.ts). */
function channelMessage(mail: InboundMail, assistant: Assistant, storedId: string): InboundChannelMessage {
  return {
    channel: 'email',
    platform: 'email',
    accountId: assistant.accountId,
    assistantId: assistant.id,
    sender: { kind: 'email', value: mail.from.address, name: mail.from.name, proven: mail.senderVerified },
    to: mail.to,
    cc: mail.cc,
    providerMessageId: mail.messageId,
    threadRefs: referencesOf(mail),
    subject: mail.subject,
    text: mail.text,
    attachments: mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    automated: !mayAutoReply({ autoSubmitted: mail.autoSubmitted, mailFrom: mail.envelope.mailFrom, senderVerified: mail.senderVerified, fromAddress: mail.from.address }),
    storedId,
  };
}

/** The listener's two callbacks over this database. */
export function inboundMailRouter(db: Db) {
  return {
    acceptRecipient: async (address: string) => (await assistantsAt(db, address)).length > 0,
    onMessage: async (mail: InboundMail) => {
      for (const { recipient, assistant } of await routes(db, mail)) await deliver(db, mail, recipient, assistant);
    },
  };
}

/** Starts the listener when STEWARD_INBOUND_SMTP_PORT is set (scripts/start.ts); null when it is off. */
export async function startInboundMail(db: Db, env: Record<string, string | undefined> = process.env): Promise<InboundListener | null> {
  const config = inboundListenerConfig(env);
  if (!config) return null;
  const listener = await startInboundListener({ ...config, ...inboundMailRouter(db) });
  logger.info(
    { port: listener.port, starttls: Boolean(config.tls), spamCheck: config.checks?.spamd ? 'on' : 'off', virusCheck: config.checks?.clamd ? 'on' : 'off' },
    'inbound mail: SMTP listener started',
  );
  return listener;
}
