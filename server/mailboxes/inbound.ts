import { storableText } from '@/db/storable';
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { sentEmailsByMessageId } from '@/db/queries/sent-messages';
import { channelThreads, mailboxMessages, taskActivities, tasks, type MailAuthResult, type MailboxProvider, type TaskRow } from '@/db/schema';
import type { InboundChannelMessage } from '@/server/channels/message';
import { logger } from '@/server/logger';
import { platformOf } from './store';
import { MAX_MESSAGE_CHARS } from '@/server/tasks/contracts';
import { attachContactReply } from '@/server/tasks/inbound-reply';
import { awaits } from '@/server/tasks/waiting-on';
import { ingestWorkflowEvent } from '@/server/workflows/triggers/events';

/*
 * New mail in a user's connected mailbox (Gmail, Microsoft 365) reaching the channel layer, once
 * per message (the provider's id is unique per mailbox). It is one of:
 *  - a contact's reply to mail the user sent through Steward (an email_as_user dispatch), from the
 *    person the task waits on: with its From address proven, it becomes the task's `contact`
 *    activity (read by the model only as untrusted data) and wakes the task, as a reply to the
 *    hosted inbox does (server/tasks/inbound-reply.ts, which covers mail sent from the
 *    assistant's own address); unproven, it is only noted on the task; DMARC fail, kept aside;
 *  - mail Steward itself sent (its Message-ID is a dispatch's): skipped, so an assistant's mail to
 *    its owner never fires the owner's workflows;
 *  - anything else: the user's `email.received` workflow triggers, with the data the hosted inbox
 *    sends and `mailbox: google|outlook`.
 */

export type MailboxContext = {
  mailboxId: string;
  userId: string;
  provider: MailboxProvider;
  /** DMARC's verdict as the provider recorded it, and why the sender is not proven (null when proven). */
  dmarc: MailAuthResult;
  senderUnproven: string | null;
};

export type MailboxOutcome = { status: 'duplicate' | (typeof mailboxMessages.$inferSelect)['status']; reason: string | null; taskId: string | null; woke: boolean };

function contactContent(m: InboundChannelMessage): string {
  const who = m.sender.name ? `${m.sender.name} <${m.sender.value}>` : m.sender.value;
  const text = `Email from ${who}\nSubject: ${m.subject ?? ''}\n\n${m.text.trim()}`;
  const cut = '\n[message truncated]';
  return text.length <= MAX_MESSAGE_CHARS ? text : text.slice(0, MAX_MESSAGE_CHARS - cut.length) + cut;
}

/** The task an email_as_user dispatch of this user was sent for, locked: the first of the thread's references that names one. */
async function repliedTask(tx: Tx, m: InboundChannelMessage, userId: string): Promise<TaskRow | null> {
  const sent = (await sentEmailsByMessageId(tx, m.threadRefs, m.accountId)).filter((s) => s.actionType === 'email_as_user' && s.userId === userId);
  for (const s of sent) {
    const [task] = await tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.id, s.taskId), eq(tasks.accountId, m.accountId), eq(tasks.userId, userId)))
      .for('update');
    if (task) return task;
  }
  return null;
}

type Routed = { status: 'attached' | 'unverified' | 'quarantined' | 'unmatched'; reason: string | null; taskId: string | null; woke: boolean };

/** Sibling of attachReply (tasks/inbound-reply.ts) for replies that reach the user's own mailbox. */
async function attachMailboxReply(tx: Tx, m: InboundChannelMessage, ctx: MailboxContext, now: Date): Promise<Routed> {
  const none = (reason: string, taskId: string | null = null): Routed => ({ status: 'unmatched', reason, taskId, woke: false });
  if (!m.threadRefs.length) return none('no_reference');
  const task = await repliedTask(tx, m, ctx.userId);
  if (!task) return none('unknown_reference');
  if (ctx.dmarc === 'fail') return { status: 'quarantined', reason: 'dmarc_fail', taskId: task.id, woke: false };
  const awaited = await awaits(tx, task, { email: m.sender.value });
  if (!awaited) return none('sender_not_awaited', task.id);
  if (!m.sender.proven) {
    const waiting = task.status === 'awaiting_non_user_response' ? ' The task keeps waiting.' : '';
    await tx.insert(taskActivities).values({
      taskId: task.id,
      accountId: task.accountId,
      kind: 'system',
      platform: 'email',
      content: storableText(`An unverified message claiming to be from ${m.sender.value} arrived in the user's mailbox in this thread and was not taken as their reply (${ctx.senderUnproven ?? 'its sender could not be authenticated'}).${waiting}`),
      createdAt: sql`clock_timestamp()`,
    });
    return { status: 'unverified', reason: 'sender_unverified', taskId: task.id, woke: false };
  }
  const run = await attachContactReply(tx, task, { platform: 'email', content: contactContent(m) }, now);
  return { status: 'attached', reason: run.reason, taskId: task.id, woke: run.woke };
}

/** Steward's notices come from MAIL_FROM (default `no-reply@steward.local`). */
const noticeSender = () => (/<([^<>\s]+)>/.exec(process.env.MAIL_FROM ?? '')?.[1] ?? process.env.MAIL_FROM ?? 'no-reply@steward.local').trim().toLowerCase();

/** Mail Steward sent itself: a dispatch's or a notice's Message-ID, or a notice's sender. */
async function sentBySteward(tx: Tx, m: InboundChannelMessage): Promise<boolean> {
  if (m.sender.value.toLowerCase() === noticeSender()) return true;
  if (!m.providerMessageId) return false;
  if ((await sentEmailsByMessageId(tx, [m.providerMessageId], m.accountId)).length) return true;
  const [notice] = await tx
    .select({ id: channelThreads.id })
    .from(channelThreads)
    .where(and(eq(channelThreads.accountId, m.accountId), eq(channelThreads.externalRef, m.providerMessageId), eq(channelThreads.direction, 'out')))
    .limit(1);
  return Boolean(notice);
}

/** Hands one new message of a connected mailbox to the layer, exactly once, in one transaction. */
export async function receiveMailboxMessage(db: Db, m: InboundChannelMessage, providerId: string, ctx: MailboxContext, now = new Date()): Promise<MailboxOutcome> {
  const outcome = await db.transaction(async (tx): Promise<MailboxOutcome> => {
    const [kept] = await tx
      .insert(mailboxMessages)
      .values({
        accountId: m.accountId,
        mailboxId: ctx.mailboxId,
        userId: ctx.userId,
        providerMessageId: providerId,
        internetMessageId: m.providerMessageId,
        fromAddress: m.sender.value,
        senderVerified: m.sender.proven,
        subject: m.subject?.slice(0, 1000) ?? null,
        status: 'skipped',
      })
      .onConflictDoNothing()
      .returning({ id: mailboxMessages.id });
    if (!kept) return { status: 'duplicate', reason: null, taskId: null, woke: false };
    const record = (o: MailboxOutcome) =>
      tx
        .update(mailboxMessages)
        .set({ status: o.status === 'duplicate' ? 'skipped' : o.status, reason: o.reason, taskId: o.taskId })
        .where(eq(mailboxMessages.id, kept.id))
        .then(() => o);

    if (await sentBySteward(tx, m)) {
      return record({ status: 'skipped', reason: 'sent_by_steward', taskId: null, woke: false });
    }
    const reply = await attachMailboxReply(tx, m, ctx, now);
    if (reply.status !== 'unmatched') return record({ ...reply, status: reply.status });
    await ingestWorkflowEvent(tx, {
      accountId: m.accountId,
      userId: ctx.userId,
      type: 'email.received',
      id: m.providerMessageId ?? `${ctx.provider}:${providerId}`,
      data: {
        from: m.sender.value,
        fromName: m.sender.name ?? null,
        senderVerified: m.sender.proven,
        subject: m.subject ?? '',
        text: m.text.slice(0, 4_000),
        assistantId: m.assistantId,
        mailbox: platformOf(ctx.provider),
        mailboxMessageId: providerId,
      },
      at: now,
    });
    return record({ status: 'workflow', reason: reply.reason, taskId: reply.taskId, woke: false });
  });
  const log = { mailboxId: ctx.mailboxId, providerId, messageId: m.providerMessageId, status: outcome.status, taskId: outcome.taskId, reason: outcome.reason };
  if (outcome.status === 'unverified' || outcome.status === 'quarantined') logger.warn({ ...log, unproven: ctx.senderUnproven }, 'mailbox: a reply was kept, not attached');
  else logger.info(log, 'mailbox: message handled');
  return outcome;
}
