import { createHash, randomUUID } from 'node:crypto';
import { and, eq, lte } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, assistants, notices, tasks, textChannels, users, type NoticeRow } from '@/db/schema';
import { siteOrigin } from '@/server/hosted/origin';
import { logger } from '@/server/logger';
import { sendMail } from '@/server/mail/mailer';
import { portSender } from '@/server/channels/adapters';
import type { Delivery } from '@/server/channels/message';
import { sendToOwner } from '@/server/channels/port-send';
import { NOTICE_LIMITED, noticeMailAllowed, noticeTextAllowed } from './budget';
import { noteThread } from './threads';
import { newLinkToken, NOTICE_LINK_TTL_MS } from './create';

/*
 * Sending one notice (create.ts recorded it), at its time: on its channel, with a one-time link
 * into the hosted app (only the hash is kept), and threaded so the user's answer reaches the task:
 * an email notice comes from Steward with Reply-To the task's assistant and a Message-ID the
 * channel layer notes, so a reply names it (In-Reply-To) and goes to that task as the owner's
 * message. A notice is sent at most once; should the answer of a send be lost, the retry sends
 * it again under the same Message-ID, which mail clients show once.
 */

export const linkTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export type NoticeOutcome = { sent: true } | { sent: false; reason: 'not_found' | 'not_pending' | 'not_due' | 'failed'; dueAt?: string };

async function replyAddress(db: Db, notice: NoticeRow): Promise<{ email: string | null; name: string | null; assistantId: string | null }> {
  const [row] = notice.taskId
    ? await db.select({ id: assistants.id, email: assistants.email, name: assistants.name }).from(tasks).innerJoin(assistants, eq(assistants.id, tasks.assistantId)).where(eq(tasks.id, notice.taskId))
    : await db.select({ id: assistants.id, email: assistants.email, name: assistants.name }).from(users).innerJoin(assistants, eq(assistants.id, users.primaryAssistantId)).where(eq(users.id, notice.userId));
  return { email: row?.email ?? null, name: row?.name ?? null, assistantId: row?.id ?? null };
}

/**
 * A notice on its chosen channel other than email, through the channel port: to the owner in their
 * 1:1 thread with the assistant's connection (a chat app's linked identity; a text's verified
 * number, each text counted against the destination's budget first). Null: nothing can carry it there.
 */
async function onChannel(db: Db, notice: NoticeRow, from: { email: string | null; assistantId: string | null }, m: { text: string; messageId: string }): Promise<Delivery | null> {
  if (!portSender(notice.channel) || !from.assistantId) return null;
  const isText = (textChannels as readonly string[]).includes(notice.channel);
  return sendToOwner(db, {
    channel: notice.channel,
    assistantId: from.assistantId,
    userId: notice.userId,
    // A text spends no blank line (it is counted in segments); a chat message sets the subject apart.
    text: notice.subject ? `${notice.subject}${isText ? '\n' : '\n\n'}${m.text}` : m.text,
    subject: notice.subject,
    ref: m.messageId,
    // Past the number's budget the notice is not texted: it goes by email instead (below).
    ...(isText ? { allow: async (to: string) => ((await noticeTextAllowed(db, notice.accountId, to)) ? null : NOTICE_LIMITED) } : {}),
  });
}

export async function deliverNotice(db: Db, noticeId: string, now = new Date()): Promise<NoticeOutcome> {
  const claimed = await db.transaction(async (tx) => {
    const [notice] = await tx.select().from(notices).where(eq(notices.id, noticeId)).for('update');
    if (!notice) return { skip: 'not_found' as const };
    if (notice.status !== 'pending') return { skip: 'not_pending' as const };
    if (notice.dueAt > now) return { skip: 'not_due' as const, dueAt: notice.dueAt.toISOString() };
    const token = newLinkToken();
    const messageId = notice.providerMessageId ?? `<notice.${randomUUID()}@${(process.env.STEWARD_ASSISTANT_EMAIL_DOMAIN ?? 'steward.local').trim()}>`;
    // The intent first: a retry after a crash reuses this Message-ID.
    const [row] = await tx
      .update(notices)
      .set({ providerMessageId: messageId, linkTokenHash: linkTokenHash(token), linkExpiresAt: new Date(now.getTime() + NOTICE_LINK_TTL_MS), linkUsedAt: null })
      .where(eq(notices.id, notice.id))
      .returning();
    const [account] = await tx.select({ hostedDomain: accounts.hostedDomain }).from(accounts).where(eq(accounts.id, notice.accountId));
    const [user] = await tx.select({ email: users.email, preferences: users.preferences }).from(users).where(eq(users.id, notice.userId));
    // The fallback to email respects `preferences.email.enabled` as the choice of channel did (create.ts).
    const emailOn = (user?.preferences as { email?: { enabled?: unknown } } | null)?.email?.enabled !== false;
    return { skip: null, notice: row!, token, messageId, origin: siteOrigin(account?.hostedDomain ?? null).origin, to: user?.email ?? null, emailOn };
  });
  if (claimed.skip) return { sent: false, reason: claimed.skip, ...(claimed.skip === 'not_due' ? { dueAt: claimed.dueAt } : {}) };

  const { notice, token, messageId, origin, to, emailOn } = claimed;
  const link = `${origin}/api/notices/open?token=${token}`;
  const from = await replyAddress(db, notice);
  const text = [
    notice.text,
    '',
    `Open it in the app (the link works once, for ${NOTICE_LINK_TTL_MS / 86_400_000} days): ${link}`,
    ...(notice.taskId && from.email ? ['', `Answer this email to reply to ${from.name ?? 'your assistant'}: your answer goes to the task.`] : []),
  ].join('\n');

  let failure: string | null = null;
  // The channel that carried it, and why another was used: a user who chose Slack, Teams or texts
  // but cannot be reached there (no linked identity, no chat with the bot, no verified number)
  // gets the notice by email rather than not at all. Only a refusal falls back: once a provider may
  // have taken it (unknown), sending it again elsewhere could say it twice.
  let channel = notice.channel;
  let note: string | null = null;
  const byEmail = async (address: string) => {
    // Past the destination's budget the notice stays in the app (budget.ts).
    if (!(await noticeMailAllowed(db, notice.accountId, address))) return NOTICE_LIMITED;
    const { status } = await sendMail(db, { accountId: notice.accountId, to: address, subject: notice.subject, text, redact: [link], messageId, ...(from.email ? { replyTo: from.email } : {}) });
    return status === 'failed' ? 'the SMTP server refused it' : null;
  };
  if (!to) failure = 'the user has no email address';
  else if (notice.channel === 'email') failure = await byEmail(to);
  else {
    const delivery = await onChannel(db, notice, from, { text, messageId });
    if (!delivery || delivery.state === 'failed') {
      const reason = delivery && 'reason' in delivery ? delivery.reason : `no provider configured for ${notice.channel}`;
      failure = emailOn ? await byEmail(to) : 'the person turned email notices off';
      if (failure) failure = `${notice.channel}: ${reason}; email: ${failure}`;
      else {
        note = `${notice.channel} could not reach the user (${reason}): sent by email instead`;
        channel = 'email';
      }
    }
  }

  await db.transaction(async (tx) => {
    await tx
      .update(notices)
      .set(failure ? { status: 'failed', error: failure } : { status: 'sent', sentAt: new Date(), channel, error: note })
      .where(and(eq(notices.id, notice.id), eq(notices.status, 'pending')));
    if (!failure && notice.taskId && from.assistantId) {
      await noteThread(tx, { accountId: notice.accountId, userId: notice.userId, assistantId: from.assistantId, channel, externalRef: messageId, direction: 'out', taskId: notice.taskId, noticeId: notice.id });
    }
  });
  if (failure) {
    logger.warn({ noticeId: notice.id, kind: notice.kind, failure }, 'notice: not delivered');
    return { sent: false, reason: 'failed' };
  }
  return { sent: true };
}

/** Notices due and still pending (their handover lost, or due after quiet hours): the sweep sends them. */
export async function dueNotices(db: Db, now = new Date(), limit = 100): Promise<string[]> {
  const rows = await db
    .select({ id: notices.id })
    .from(notices)
    .where(and(eq(notices.status, 'pending'), lte(notices.dueAt, now)))
    .orderBy(notices.dueAt)
    .limit(limit);
  return rows.map((r) => r.id);
}
