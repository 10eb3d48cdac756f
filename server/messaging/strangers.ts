import { storableText } from '@/db/storable';
import { and, eq, notInArray, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { chats, taskActivities, tasks, type ChatMessageRow, type TaskRow, type UserRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import type { InboundChannelMessage } from '@/server/channels/message';
import { continueEmailChat } from '@/server/chats/email';
import { appendChatMessage } from '@/server/chats/messages';
import { chatTier } from '@/server/chats/tier';
import { ENDED_STATUSES } from '@/server/tasks/ended';
import { contactContent, runForReply } from '@/server/tasks/inbound-reply';
import { queueRun } from '@/server/tasks/runs';
import { insertTask } from '@/server/tasks/service';
import { strangerTag } from '@/server/tasks/strangers';
import type { Writer } from './identify';
import { storeAttachments } from './attachments';
import type { Routed } from './routed';

/*
 * A message from anyone but the owner (issue: the channel layer). It is always kept where the owner
 * sees it: their chat with that counterpart on the channel (role `contact`, untrusted). Then the
 * assistant's `talkToStrangers` decides: false, nothing answers; true, a stranger conversation
 * (tasks/strangers.ts) drafts an answer that may read nothing private of the owner and is held for
 * the owner's approval (the stranger's words taint it, so the send to them waits for a person).
 * Machine-written mail, and mail whose sender is not proven (answering a forged From reaches a
 * bystander), is never answered: kept with reason `not_answered`.
 *
 * Texts (SMS, WhatsApp, iMessage) follow the same rules with their own thread: a stranger's chat
 * is keyed by the channel and their number. In a group conversation the assistant works for its
 * owner: another member's message joins the owner's chat of that group as `contact` (untrusted,
 * tainting what reads it), and opens no conversation of its own; the assistant answers the group
 * when the owner writes in it.
 */

const INSTRUCTIONS = (owner: string, counterpart: string, channel: string) =>
  [
    `${counterpart} wrote to you, ${owner}'s assistant; they are not ${owner} and not someone ${owner} asked you to talk to.`,
    channel === 'email'
      ? `Decide whether a short, polite answer on ${owner}'s behalf is useful (answer with send_email to ${counterpart}); it is sent only once ${owner} approves it.`
      : channel === 'voice'
        ? `They phoned and left this message. Decide whether calling them back (place_call to ${counterpart}) or a text (send_message, platform sms, to ${counterpart}) is useful; it happens only once ${owner} approves it.`
        : `Decide whether a short, polite answer on ${owner}'s behalf is useful (answer with send_message, platform ${channel}, to ${counterpart}); it is sent only once ${owner} approves it.`,
    `In this conversation you cannot read anything of ${owner}'s (memories, contacts, mail, files, calendar): do not claim to know or promise anything about ${owner}.`,
    'When nothing needs an answer, call complete_task with a one-line summary for the owner.',
  ].join('\n');

/** The owner acting, with a user's rights only (the task is theirs; its runs act as the agent). */
const ownerActing = (owner: NonNullable<Extract<Writer, { kind: 'stranger' }>['owner']>): UserActor => ({
  accountId: owner.accountId,
  credential: { kind: 'channel', channel: 'stranger' },
  level: 'user',
  organizationId: null,
  user: owner,
  actingVia: null,
  scopes: [],
  account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null },
});

/** The open conversation with this counterpart, or a new one; its run reads the message. */
async function strangerConversation(tx: Tx, writer: Extract<Writer, { kind: 'stranger' }>, msg: InboundChannelMessage, counterpart: string): Promise<string | null> {
  const owner = writer.owner!;
  const tag = strangerTag(writer.assistant.id, counterpart);
  const [open] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.userId, owner.id), sql`${tasks.tags} @> ARRAY[${tag}]::text[]`, notInArray(tasks.status, [...ENDED_STATUSES])))
    .limit(1)
    .for('update');
  const source = { kind: msg.channel === 'email' ? ('email' as const) : ('message' as const), ref: counterpart };
  let task: TaskRow | undefined = open;
  if (!task) {
    task = await insertTask(tx, ownerActing(owner), {
      title: `Conversation with ${msg.sender.name ? `${msg.sender.name} <${counterpart}>` : counterpart}`,
      description: INSTRUCTIONS(owner.name?.trim() || owner.email, counterpart, msg.channel),
      assistant: writer.assistant.id,
      tags: [tag],
      taintSources: [source],
    });
  }
  const content =
    msg.channel === 'email'
      ? contactContent({ from: { address: counterpart, name: msg.sender.name ?? null }, subject: msg.subject ?? '', text: msg.text })
      : `${msg.channel === 'voice' ? 'Call' : msg.channel.toUpperCase()} from ${msg.sender.name ? `${msg.sender.name} <${counterpart}>` : counterpart}\n\n${msg.text.trim().slice(0, 20_000)}`;
  const run = open ? await runForReply(tx, task, new Date()) : { runId: (await queueRun(tx, task, 'reply')).id };
  await tx.insert(taskActivities).values({ taskId: task.id, accountId: task.accountId, kind: 'contact', platform: msg.platform, content: storableText(content), runId: run.runId, createdAt: sql`clock_timestamp()` });
  return task.id;
}

type Kept = { chatId: string; userId: string; message: ChatMessageRow };

/** A text from someone other than the owner, kept in the owner's chat with that number (or of that group) as `contact`. */
async function keepText(tx: Tx, owner: UserRow, msg: InboundChannelMessage, files: ChatMessageRow['files'], refused: string[]): Promise<Kept> {
  const counterpart = msg.sender.value;
  const group = isGroup(msg);
  // A group's chat is the owner's (the same key as inbound.ts gives the owner's own messages there).
  const threadKey = group ? `${msg.channel}:${owner.id}:${msg.threadKey}` : `${msg.channel}:${counterpart}`;
  const thread = and(eq(chats.assistantId, msg.assistantId), eq(chats.platform, msg.platform), eq(chats.threadKey, threadKey));
  // Most texts continue a chat: read it first, and make one (its tier resolved) only when there is none.
  const [known] = await tx.select().from(chats).where(thread);
  if (!known) {
    await tx
      .insert(chats)
      .values({
        accountId: msg.accountId,
        userId: owner.id,
        assistantId: msg.assistantId,
        title: group ? `Group conversation (${msg.channel})` : msg.channel === 'voice' ? `Calls from ${counterpart}` : `Messages from ${counterpart}`,
        platform: msg.platform,
        participants: [...new Set([counterpart, ...msg.cc])].map((value) => ({ type: 'phone' as const, value })),
        threadKey,
        modelTier: await chatTier(tx, owner),
      })
      .onConflictDoNothing();
  }
  const chat = known ?? (await tx.select().from(chats).where(thread))[0];
  const message = await appendChatMessage(tx, chat!, {
    role: 'contact',
    content: msg.text,
    from: msg.sender.name ? `${msg.sender.name} <${counterpart}>` : counterpart,
    to: msg.to,
    cc: msg.cc,
    platform: msg.platform,
    referenceId: msg.providerMessageId,
    files,
    deliveryState: 'received',
    metadata: { channel: msg.channel, senderVerified: msg.sender.proven, ...(msg.storedId ? { inboundTextId: msg.storedId } : {}), ...(refused.length ? { attachmentsNotStored: refused } : {}) },
  });
  return { chatId: chat!.id, userId: owner.id, message };
}

const isGroup = (msg: InboundChannelMessage) => msg.channel !== 'email' && Boolean(msg.threadKey?.startsWith('group:'));

export async function strangerMessage(tx: Tx, writer: Extract<Writer, { kind: 'stranger' }>, msg: InboundChannelMessage, opts: { converse: boolean }): Promise<Routed> {
  const none = { reason: null, chatId: null, taskId: null, activityId: null, turns: [], external: null, refusal: null };
  // A shared assistant works for no one person here: the message is kept, unmatched.
  if (!writer.owner) return { ...none, status: 'unmatched', reason: 'shared_assistant' };
  const counterpart = msg.channel === 'email' ? msg.sender.value.toLowerCase() : msg.sender.value;
  const { files, refused } = await storeAttachments(tx, writer.owner, msg);
  const chat: Kept | null =
    msg.channel === 'email'
      ? await continueEmailChat(tx, {
          accountId: msg.accountId,
          assistantId: msg.assistantId,
          inboundMessageId: msg.storedId ?? '',
          messageId: msg.providerMessageId,
          from: { address: counterpart, name: msg.sender.name ?? null },
          to: msg.to,
          cc: msg.cc,
          subject: msg.subject ?? '',
          text: msg.text,
          attachments: msg.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, size: a.content.byteLength })),
          files,
          attachmentsNotStored: refused,
          senderVerified: msg.sender.proven,
        })
      : await keepText(tx, writer.owner, msg, files, refused);
  if (!chat) return { ...none, status: 'unmatched', reason: 'shared_assistant' };
  const external = { userId: chat.userId, chatId: chat.chatId };
  // In a group the owner leads: another member's words are kept for the owner's next turn there.
  if (isGroup(msg)) return { ...none, status: 'chat', chatId: chat.chatId, activityId: chat.message.id, external, reason: 'group_member' };
  const answers = opts.converse && writer.assistant.talkToStrangers && !msg.automated && msg.sender.proven && writer.owner.status === 'active';
  const taskId = answers ? await strangerConversation(tx, writer, msg, counterpart) : null;
  const reason = answers ? 'stranger_conversation' : !writer.assistant.talkToStrangers ? 'stranger_kept' : msg.automated || !msg.sender.proven ? 'not_answered' : 'owner_cannot_act';
  return { ...none, status: 'chat', chatId: chat.chatId, activityId: chat.message.id, taskId, external, reason };
}
