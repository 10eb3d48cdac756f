import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { inboundTexts, textChannels, type ChatMessageRow, type ChatRow } from '@/db/schema';
import type { ChannelAdapter } from '@/server/channels/adapter';
import { portAdapter, threadOfRef } from '@/server/channels/adapters';
import type { Readers } from './audience';

/*
 * Who can read a chat's answer where it would be sent (the audience rule, audience.ts, decides
 * what follows): each channel's own answer to "who is in this thread", and how the answer is
 * staged should anyone but the owner be.
 * - texts (SMS, WhatsApp, iMessage): the number that wrote, or every member of the group
 *   (inbound_texts.participants, the assistant's own line left out);
 * - an adapter of the channel port (Slack, Teams, Telegram): its own audienceOf (Slack: a DM, or
 *   the writer's DM a mention is answered in; Teams serves 1:1 chats only);
 * - mail: the reply's recipients (replies.ts answers the owner alone: To their address, no Cc).
 */

/** How an answer others read is staged: the dispatch a send_message or send_email of it would be. */
export type OutwardTarget = {
  type: 'message' | 'email';
  platform: string;
  actionType: 'messaging' | 'email_as_assistant';
  to: string[];
  cc: string[];
  subject: string | null;
};

export type ReplyReaders = Readers & { target: OutwardTarget };

const TEXTS = new Set<string>(textChannels);

/** The readers of a group thread on a text channel: named `group:<id>` for the dispatch, so the adapter posts into that group. */
async function textReaders(db: Db, channel: string, question: ChatMessageRow): Promise<ReplyReaders> {
  const [text] = question.referenceId
    ? await db
        .select({ from: inboundTexts.fromNumber, to: inboundTexts.toNumber, group: inboundTexts.groupKey, participants: inboundTexts.participants })
        .from(inboundTexts)
        .where(and(eq(inboundTexts.providerMessageId, question.referenceId), eq(inboundTexts.channel, channel as 'sms')))
        .limit(1)
    : [];
  const message = (to: string): OutwardTarget => ({ type: 'message', platform: channel, actionType: 'messaging', to: [to], cc: [], subject: null });
  if (!text) return { readers: [], where: `the ${channel} thread`, target: message(question.from ?? '') };
  if (!text.group) return { readers: [text.from], where: `your ${channel} thread`, target: message(text.from) };
  const members = [...new Set([text.from, ...text.participants])].filter((p) => p !== text.to);
  return { readers: members, where: `the ${channel} group with ${members.join(', ')}`, target: message(`group:${text.group}`) };
}

/** A port adapter's thread: a 1:1 thread is the owner's alone when its person wrote the question; a room's members are not known. */
function portReaders(port: ChannelAdapter, question: ChatMessageRow): ReplyReaders {
  const thread = threadOfRef(question.referenceId);
  // A reference written before its channel moved behind the port has no thread part: the adapter still reads it.
  const audience = port.audienceOf(thread ?? question.referenceId ?? '');
  const owner = question.from ?? '';
  const target: OutwardTarget = { type: 'message', platform: port.channel, actionType: 'messaging', to: [thread ?? owner], cc: [], subject: null };
  if (audience?.kind === 'direct') return { readers: [owner], where: `your ${port.label} chat`, target };
  return { readers: [], where: audience?.where ?? `a ${port.label} conversation`, target };
}

/**
 * Who reads the answer to `question` in `chat` on `channel`, sent to `to` and `cc` (mail), and
 * how it would be staged for them.
 */
export async function replyReaders(db: Db, channel: string, chat: Pick<ChatRow, 'userId'>, question: ChatMessageRow, mail: { to: string[]; cc: string[]; subject: string | null }): Promise<ReplyReaders> {
  if (TEXTS.has(channel)) return textReaders(db, channel, question);
  const port = portAdapter(channel);
  if (port) return portReaders(port, question);
  const readers = [...mail.to, ...mail.cc];
  return {
    readers,
    where: mail.cc.length || mail.to.length > 1 ? `the mail thread with ${readers.join(', ')}` : 'your mail thread',
    target: { type: 'email', platform: 'email', actionType: 'email_as_assistant', to: mail.to, cc: mail.cc, subject: mail.subject },
  };
}
