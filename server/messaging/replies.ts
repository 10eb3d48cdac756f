import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, chatMessages, chats, chatTurns, users, type ChatMessageRow } from '@/db/schema';
import { replySubject } from '@/server/channels/email/transform';
import { threadOfRef } from '@/server/channels/adapters';
import type { Delivery } from '@/server/channels/message';
import { sendThroughPort } from '@/server/channels/port-send';
import { ownAddresses } from '@/server/approvals/hold';
import { chatTaint } from '@/server/chats/taint';
import { logger } from '@/server/logger';
import { audienceOf, replyRoute } from './audience';
import { stageOutwardReply } from './outward-reply';
import { channelActor } from './owner-actor';
import { replyReaders } from './reply-readers';
import { chatRefs, noteThread } from '@/server/notices/threads';

/*
 * Replies go back where the message came from (issue: the channel layer): when a chat turn of a
 * channel chat (email, and the channels to come) has answered, the reply is sent into the same
 * thread, to the owner who wrote, threaded (for email: In-Reply-To the owner's message,
 * References the thread, `Re:` subject, from the assistant's own address). A reply only the owner
 * reads is conversation, not an outward action: it is not staged. A reply others can read too (a
 * group, a shared channel, a mail with other recipients) is an outward action, staged and released
 * or held as the audience rule says (audience.ts, outward-reply.ts). Exactly once: the intent (the provider
 * id chosen before sending) is recorded before the send and the outcome after, so a step retried
 * after a crash finds the intent and sends nothing again (the reply stays `unknown`).
 */

export type ReplyDelivery = { sent: false; reason: string; staged?: { cartId: string; taskId: string; status: string } } | { sent: true; delivery: Delivery };

type Intent = { channel: string; providerMessageId: string; state: string; reason?: string };

const intentOf = (m: ChatMessageRow) => (m.metadata as { delivery?: Intent }).delivery ?? null;

export async function deliverTurnReply(db: Db, turnId: string): Promise<ReplyDelivery> {
  const [row] = await db.select({ turn: chatTurns, chat: chats }).from(chatTurns).innerJoin(chats, eq(chats.id, chatTurns.chatId)).where(eq(chatTurns.id, turnId));
  if (!row || row.chat.platform === 'chat' || row.turn.status !== 'completed' || !row.turn.replyMessageId) return { sent: false, reason: 'nothing to send on a channel' };
  const [question] = await db.select().from(chatMessages).where(eq(chatMessages.id, row.turn.messageId));
  const channel = (question?.metadata as { channel?: string } | undefined)?.channel;
  // Only a message that came in on a channel from the owner is answered there (a message added through the API stays in the app).
  if (!question || question.role !== 'user' || !channel || !question.from) return { sent: false, reason: 'the question did not come in on a channel' };
  // A phone call's reply is spoken in the call, by the webhook that waited for it (voice-inbound.ts).
  if (channel === 'voice') return { sent: false, reason: 'a call’s reply is spoken in the call' };
  const [assistant] = await db.select({ email: assistants.email }).from(assistants).where(eq(assistants.id, row.chat.assistantId));
  if (!assistant?.email) return { sent: false, reason: 'the assistant no longer exists or has no address' };
  const from = assistant.email;
  const domain = from.split('@')[1] ?? 'steward.local';
  // Who reads the answer where it would go decides whether it is conversation (audience.ts).
  const mail = { to: [question.from], cc: [] as string[], subject: replySubject(question.subject) };
  const readers = await replyReaders(db, channel, row.chat, question, mail);
  const audience = audienceOf(readers, await ownAddresses(db, row.chat.userId));
  if (!audience.ownerOnly) {
    // An outward action is the owner's: one who can no longer act (blocked, a frozen account) sends nothing to others.
    const [owner] = await db.select().from(users).where(eq(users.id, row.chat.userId));
    const actor = owner ? await channelActor(db, owner, channel) : null;
    if (!actor) return { sent: false, reason: 'others read the thread and the owner cannot act now: nothing was sent' };
    const route = replyRoute(audience, await chatTaint(db, actor, row.chat));
    if (route.kind === 'outward') {
      const staged = await stageOutwardReply(db, actor, row.chat, row.turn.replyMessageId, route, readers.target);
      return staged.staged ? { sent: false, reason: `others read ${route.where}: the answer was staged`, staged } : { sent: false, reason: staged.reason };
    }
  }
  const claimed = await db.transaction(async (tx) => {
    const [reply] = await tx.select().from(chatMessages).where(and(eq(chatMessages.id, row.turn.replyMessageId!), eq(chatMessages.chatId, row.chat.id))).for('update');
    if (!reply || intentOf(reply)) return null;
    const intent: Intent = { channel, providerMessageId: `<${randomUUID()}@${domain}>`, state: 'sending' };
    await tx
      .update(chatMessages)
      .set({ deliveryState: 'unknown', referenceId: intent.providerMessageId, metadata: { ...reply.metadata, delivery: intent } })
      .where(eq(chatMessages.id, reply.id));
    await noteThread(tx, { accountId: row.chat.accountId, userId: row.chat.userId, assistantId: row.chat.assistantId, channel, externalRef: intent.providerMessageId, direction: 'out', chatId: row.chat.id });
    return { reply, intent, references: await chatRefs(tx, row.chat.id) };
  });
  if (!claimed) return { sent: false, reason: 'already sent or being sent' };

  // Every channel's reply goes through the port; one with no sender there fails with the reason, and nothing is sent.
  const delivery: Delivery = await sendThroughPort(db, {
    channel,
    assistantId: row.chat.assistantId,
    kind: 'reply',
    // A reference written before its channel moved behind the port has no thread part: it names its conversation itself (as mail's Message-IDs do).
    thread: threadOfRef(question.referenceId) ?? question.referenceId,
    replyTo: question.referenceId,
    // Mail answers the owner who wrote, under the thread's subject, naming the thread's messages.
    to: question.from,
    subject: mail.subject,
    references: claimed.references,
    text: claimed.reply.content,
    ref: claimed.intent.providerMessageId,
  });
  const state = delivery.state === 'accepted' || delivery.state === 'delivered' ? 'provider_accepted' : delivery.state;
  await db
    .update(chatMessages)
    .set({
      deliveryState: state,
      metadata: { ...claimed.reply.metadata, delivery: { ...claimed.intent, state: delivery.state, ...('reason' in delivery ? { reason: delivery.reason } : {}) } },
    })
    .where(eq(chatMessages.id, claimed.reply.id));
  if (state !== 'provider_accepted') logger.warn({ turnId, chatId: row.chat.id, delivery }, 'messaging: the reply could not be delivered on its channel');
  return { sent: true, delivery };
}
