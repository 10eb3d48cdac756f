import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { sentEmailsByMessageId } from '@/db/queries/sent-messages';
import { chats, type ChatRow, type UserRow } from '@/db/schema';
import type { InboundChannelMessage } from '@/server/channels/message';
import { appendChatMessage } from '@/server/chats/messages';
import { chatTier } from '@/server/chats/tier';
import { queueChatTurn } from '@/server/chats/turn-queue';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { processTask } from '@/server/tasks/process';
import { storeAttachments } from './attachments';
import { answerAwaited } from './awaited-replies';
import { whoIsWriting, type Writer } from './identify';
import { channelActor } from './owner-actor';
import { strangerMessage } from './strangers';
import { findThread, noteThread } from '@/server/notices/threads';
import { routed, type Routed } from './routed';
import { inactiveReply } from '@/server/assistants/inactive';

export type { Routed } from './routed';

/*
 * Where a message that reached an assistant on a channel goes (issue: the channel layer), decided
 * here and nowhere else:
 * - from the owner (proven, one of their verified identifiers), in a thread that belongs to a task
 *   (a notice about it, mail the task sent) → that task, as the owner's message (process);
 * - from the owner otherwise → the owner's chat for that channel thread, and a chat turn answers it
 *   (its reply goes back on the channel: replies.ts), unless the mail is machine-written;
 * - from anyone else → strangers.ts: kept and shown to the owner; with talkToStrangers, a
 *   conversation that may read nothing private and whose replies wait for the owner.
 * Replies to mail a task sent to the contacts it waits on are handled before this (the hosted
 * inbox's tasks/inbound-reply.ts); a message on any other channel from someone a task waits on
 * goes to that task first (awaited-replies.ts).
 */

/** The task a thread belongs to: one a notice was about, or one whose email this is an answer to. */
async function threadTask(tx: Tx, msg: InboundChannelMessage, owner: UserRow): Promise<string | null> {
  const thread = await findThread(tx, msg.accountId, msg.channel, msg.threadRefs);
  if (thread?.taskId && thread.userId === owner.id) return thread.taskId;
  if (msg.channel !== 'email') return null;
  const sent = await sentEmailsByMessageId(tx, msg.threadRefs, msg.accountId);
  return sent.find((s) => s.userId === owner.id && s.assistantId === msg.assistantId)?.taskId ?? null;
}

/** The owner's chat for this thread: the one the thread already belongs to, or a new one. */
async function ownerChat(tx: Tx, writer: Extract<Writer, { kind: 'owner' }>, msg: InboundChannelMessage): Promise<ChatRow> {
  const thread = await findThread(tx, msg.accountId, msg.channel, msg.threadRefs);
  if (thread?.chatId && thread.userId === writer.user.id) {
    const [chat] = await tx.select().from(chats).where(and(eq(chats.id, thread.chatId), eq(chats.userId, writer.user.id)));
    if (chat) return chat;
  }
  // A new thread: one chat per person and channel thread (spec document 2, Chat). A channel with
  // conversations of its own names them (threadKey); mail starts a thread with its first message.
  const threadKey = msg.threadKey ? `${msg.channel}:${writer.user.id}:${msg.threadKey}` : `${msg.channel}:${msg.providerMessageId ?? msg.storedId ?? Date.now().toString(36)}`;
  const keyed = and(eq(chats.assistantId, msg.assistantId), eq(chats.platform, msg.platform), eq(chats.threadKey, threadKey));
  // A conversation the channel names (a text thread, a DM) usually has its chat already: read it
  // first, so each message does not pay the new chat's tier lookup and an insert that conflicts.
  if (msg.threadKey) {
    const [known] = await tx.select().from(chats).where(keyed);
    if (known) return known;
  }
  await tx
    .insert(chats)
    .values({
      accountId: msg.accountId,
      userId: writer.user.id,
      assistantId: msg.assistantId,
      title: msg.subject?.trim() || (msg.channel === 'voice' ? `Phone call from ${msg.sender.value}` : `Message from ${writer.user.email}`),
      platform: msg.platform,
      participants: [...new Set([msg.sender.value.toLowerCase(), ...msg.cc])].map((value) => ({ type: msg.sender.kind === 'phone' ? ('phone' as const) : ('email' as const), value })),
      threadKey,
      modelTier: await chatTier(tx, writer.user),
    })
    .onConflictDoNothing();
  const [chat] = await tx.select().from(chats).where(keyed);
  return chat!;
}

async function fromOwner(tx: Tx, writer: Extract<Writer, { kind: 'owner' }>, msg: InboundChannelMessage): Promise<Routed> {
  const actor = await channelActor(tx, writer.user, msg.channel);
  const { files, refused } = await storeAttachments(tx, writer.user, msg);
  const taskId = actor ? await threadTask(tx, msg, writer.user) : null;
  if (actor && taskId) {
    try {
      const done = await tx.transaction((sp) =>
        processTask(sp as never, actor, taskId, { message: msg.text, files: files.map((f) => ({ fileId: f.fileId })) }, { platform: msg.platform }),
      );
      if (msg.providerMessageId) await noteThread(tx, { accountId: msg.accountId, userId: writer.user.id, assistantId: msg.assistantId, channel: msg.channel, externalRef: msg.providerMessageId, direction: 'in', taskId });
      return routed({ status: 'attached', taskId, reason: done.process.message ?? null });
    } catch (e) {
      // A task that cannot take a message now (ended, awaiting its approval): the owner's chat gets it instead.
      if (!(e instanceof AppError)) throw e;
      logger.info({ taskId, code: e.code }, 'messaging: the owner answered a task that cannot take a message; it goes to their chat');
    }
  }
  const chat = await ownerChat(tx, writer, msg);
  const message = await appendChatMessage(tx, chat, {
    role: 'user',
    content: msg.text,
    from: msg.sender.value,
    to: msg.to,
    cc: msg.cc,
    subject: msg.subject,
    platform: msg.platform,
    referenceId: msg.providerMessageId,
    files,
    deliveryState: 'received',
    metadata: { channel: msg.channel, ...(msg.storedId ? { inboundMessageId: msg.storedId } : {}), ...(refused.length ? { attachmentsNotStored: refused } : {}) },
  });
  if (msg.providerMessageId) {
    await noteThread(tx, { accountId: msg.accountId, userId: writer.user.id, assistantId: msg.assistantId, channel: msg.channel, externalRef: msg.providerMessageId, direction: 'in', chatId: chat.id });
  }
  // Machine-written mail (an auto-reply, a list) is kept and never answered; a frozen account or a blocked owner runs nothing.
  const turns = actor && !msg.automated ? [await queueChatTurn(tx, chat, message.id)] : [];
  return routed({ status: 'chat', chatId: chat.id, activityId: message.id, turns, reason: turns.length ? null : msg.automated ? 'automated' : 'owner_cannot_act' });
}

/**
 * Routes one inbound message inside the caller's transaction (the one that stored it).
 * `inTaskThread`: the message answers mail a task sent to others (the hosted inbox found the task
 * but its sender is not awaited): someone else's message there is kept, and opens no conversation.
 */
export async function routeInbound(tx: Tx, msg: InboundChannelMessage, opts: { inTaskThread?: boolean } = {}): Promise<Routed> {
  const writer = await whoIsWriting(tx, msg.accountId, msg.assistantId, msg.sender);
  if (!writer) return routed({ status: 'unmatched', reason: 'no_assistant' });
  // An inactive assistant (spec 1, Assistant `status`) routes nothing into tasks or chats: the message
  // is kept (unmatched) and the sender is told, the owner always, others only when the assistant talks
  // to strangers; machine-written mail and unproven senders are told nothing (no loops, no backscatter).
  if (writer.assistant.status === 'inactive') {
    const tell = !msg.automated && msg.sender.proven && (writer.kind === 'owner' || writer.assistant.talkToStrangers);
    return routed({ status: 'unmatched', reason: 'assistant_inactive', refusal: tell ? inactiveReply(writer.assistant.metadata as Record<string, unknown>) : null });
  }
  // Someone a task waits on answering (wait_for_reply): their words go to that task and wake it.
  const answered = await answerAwaited(tx, msg, writer);
  if (answered) return answered;
  if (writer.kind === 'owner') return fromOwner(tx, writer, msg);
  return strangerMessage(tx, writer, msg, { converse: !opts.inTaskThread });
}
