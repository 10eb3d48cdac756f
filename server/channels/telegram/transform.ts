import { z } from 'zod';
import type { ChannelPerson, OutboundButton, ThreadAudience, ThreadRef } from '../adapter';

/*
 * Telegram's Bot API objects to and from the port's common form (server/channels/adapter.ts), as
 * pure functions: no database, no network, tested without a server. Wire names are the Bot API's
 * (core.telegram.org/bots/api): Update, Message, Chat, User, Document, PhotoSize, CallbackQuery;
 * sendMessage's reply_parameters and reply_markup.inline_keyboard.
 */

const Id = z.union([z.number().int(), z.string().regex(/^-?\d{1,20}$/)]).transform(String);

export const TgUser = z.object({ id: Id, is_bot: z.boolean().default(false), first_name: z.string().max(256).default(''), last_name: z.string().max(256).optional(), username: z.string().max(64).optional() }).loose();
export type TgUser = z.infer<typeof TgUser>;

export const TgChat = z.object({ id: Id, type: z.enum(['private', 'group', 'supergroup', 'channel']), title: z.string().max(256).optional() }).loose();
export type TgChat = z.infer<typeof TgChat>;

const TgDocument = z.object({ file_id: z.string().min(1).max(512), file_name: z.string().max(512).optional(), mime_type: z.string().max(255).optional(), file_size: z.number().int().optional() }).loose();
const TgPhotoSize = z.object({ file_id: z.string().min(1).max(512), width: z.number().int().default(0), height: z.number().int().default(0), file_size: z.number().int().optional() }).loose();

export const TgMessage = z
  .object({
    message_id: z.number().int(),
    message_thread_id: z.number().int().optional(),
    from: TgUser.optional(),
    sender_chat: TgChat.optional(),
    chat: TgChat,
    date: z.number().int(),
    text: z.string().max(8_192).optional(),
    caption: z.string().max(2_048).optional(),
    document: TgDocument.optional(),
    photo: z.array(TgPhotoSize).max(20).optional(),
    is_topic_message: z.boolean().optional(),
  })
  .loose();
export type TgMessage = z.infer<typeof TgMessage>;

export const TgCallbackQuery = z.object({ id: z.string().min(1).max(100), from: TgUser, message: TgMessage.optional(), data: z.string().max(64).optional() }).loose();

export const TgUpdate = z
  .object({
    update_id: z.number().int(),
    message: TgMessage.optional(),
    edited_message: TgMessage.optional(),
    channel_post: TgMessage.optional(),
    callback_query: TgCallbackQuery.optional(),
  })
  .loose();
export type TgUpdate = z.infer<typeof TgUpdate>;

/* ---- threads ---- */

/** `telegram:<botId>:<chatId>` (and `:<topicId>` in a forum topic): the chat a message belongs to. */
export function threadOf(botId: string, chatId: string, topicId?: number | null): ThreadRef {
  return topicId ? `telegram:${botId}:${chatId}:${topicId}` : `telegram:${botId}:${chatId}`;
}

export type ParsedThread = { botId: string; chatId: string; topicId: number | null };

export function parseThread(ref: string | null | undefined): ParsedThread | null {
  const m = /^telegram:(\d{1,20}):(-?\d{1,20})(?::(\d{1,10}))?$/.exec(ref ?? '');
  return m ? { botId: m[1]!, chatId: m[2]!, topicId: m[3] ? Number(m[3]) : null } : null;
}

/** A message's own reference: its thread and its id (`…#<messageId>`), what a reply threads on. */
export const messageRefOf = (thread: ThreadRef, messageId: number | string) => `${thread}#${messageId}`;

export function parseMessageRef(ref: string | null | undefined): (ParsedThread & { messageId: number }) | null {
  const [thread, id] = (ref ?? '').split('#');
  const t = parseThread(thread);
  return t && id && /^\d{1,12}$/.test(id) ? { ...t, messageId: Number(id) } : null;
}

/**
 * Who reads a chat: a private chat's id is the person's own user id (Telegram gives a 1:1 chat the
 * id of the user; only users have positive ids), so only that person, in a topic of it too (a bot
 * in threaded mode has topics in private chats, still the two of them); in a group, supergroup or
 * channel (negative ids), its members, whom the bot cannot list. parseWebhook says the same of
 * the message that arrives there: the answer's readers must be the question's.
 */
export function audienceOfThread(ref: ThreadRef): ThreadAudience {
  const t = parseThread(ref);
  if (t && !t.chatId.startsWith('-')) return { kind: 'direct', person: t.chatId };
  return { kind: 'room', where: t ? `the Telegram group ${t.chatId}` : 'an unknown Telegram chat' };
}

export const personOf = (botId: string, u: TgUser, proven: boolean): ChannelPerson => ({
  workspaceId: botId,
  userId: u.id,
  name: [u.first_name, u.last_name].filter(Boolean).join(' ').trim() || (u.username ? `@${u.username}` : null),
  proven,
});

/* ---- inbound ---- */

export type FileRef = { fileId: string; filename: string | null; contentType: string };

/** A message's files: its document, and the largest size of a photo. */
export function filesOf(m: TgMessage): FileRef[] {
  const out: FileRef[] = [];
  if (m.document) out.push({ fileId: m.document.file_id, filename: m.document.file_name ?? null, contentType: m.document.mime_type ?? 'application/octet-stream' });
  if (m.photo?.length) {
    const largest = [...m.photo].sort((a, b) => b.width * b.height - a.width * a.height)[0]!;
    out.push({ fileId: largest.file_id, filename: `photo-${m.message_id}.jpg`, contentType: 'image/jpeg' });
  }
  return out;
}

/** `/start <code>` (a deep link t.me/<bot>?start=<code> sends it): the code, else null. */
export function linkCodeOf(text: string | undefined): string | null {
  const m = /^\/start(?:@\w+)?\s+([A-Za-z0-9_-]{16,64})\s*$/.exec(text ?? '');
  return m ? m[1]! : null;
}

/** The text a message carries: its text, or the caption of its file. */
export const textOf = (m: TgMessage) => (m.text ?? m.caption ?? '').trim();

export type ParsedUpdate =
  | { kind: 'message'; externalId: string; from: TgUser; chat: TgChat; thread: ThreadRef; messageRef: string; text: string; files: FileRef[]; linkCode: string | null }
  | { kind: 'press'; externalId: string; from: TgUser; callbackId: string; binding: string; decision: 'approve' | 'reject'; thread: ThreadRef; messageRef: string }
  | { kind: 'ignored'; externalId: string; reason: string };

/**
 * An update as the port reads it. Only new messages written by people are messages (edits, channel
 * posts, other bots and service messages are not); a callback query is a press only when it carries
 * one of Steward's approval buttons and names the message it was on.
 */
export function parseUpdate(update: TgUpdate, botId: string): ParsedUpdate {
  const externalId = String(update.update_id);
  if (update.callback_query) {
    const q = update.callback_query;
    const data = parseCallbackData(q.data);
    if (!data) return { kind: 'ignored', externalId, reason: 'a button that is not Steward’s' };
    if (!q.message) return { kind: 'ignored', externalId, reason: 'a press without its message' };
    const thread = threadOf(botId, q.message.chat.id, q.message.is_topic_message ? q.message.message_thread_id : null);
    return { kind: 'press', externalId, from: q.from, callbackId: q.id, binding: data.binding, decision: data.decision, thread, messageRef: messageRefOf(thread, q.message.message_id) };
  }
  const m = update.message;
  if (!m) return { kind: 'ignored', externalId, reason: update.edited_message ? 'an edit is not a new message' : update.channel_post ? 'a channel post' : 'not a message' };
  if (!m.from || m.from.is_bot || m.sender_chat) return { kind: 'ignored', externalId, reason: 'not written by a person' };
  const text = textOf(m);
  const files = filesOf(m);
  if (!text && !files.length) return { kind: 'ignored', externalId, reason: 'a service message' };
  const thread = threadOf(botId, m.chat.id, m.is_topic_message ? m.message_thread_id : null);
  return { kind: 'message', externalId, from: m.from, chat: m.chat, thread, messageRef: messageRefOf(thread, m.message_id), text, files, linkCode: m.chat.type === 'private' ? linkCodeOf(m.text) : null };
}

/* ---- buttons ---- */

/** callback_data holds at most 64 bytes: the decision and the core's binding token (never the cart and hash in the clear). */
export function callbackData(b: Pick<OutboundButton, 'decision' | 'binding'>): string {
  const data = `st:${b.decision === 'approve' ? 'a' : 'r'}:${b.binding}`;
  if (Buffer.byteLength(data) > 64) throw new Error('a Telegram button carries at most 64 bytes');
  return data;
}

export function parseCallbackData(data: string | undefined): { decision: 'approve' | 'reject'; binding: string } | null {
  const m = /^st:([ar]):([A-Za-z0-9_-]{8,58})$/.exec(data ?? '');
  return m ? { decision: m[1] === 'a' ? 'approve' : 'reject', binding: m[2]! } : null;
}

export const inlineKeyboard = (buttons: OutboundButton[]) => ({ inline_keyboard: [buttons.map((b) => ({ text: b.text, callback_data: callbackData(b) }))] });

/* ---- outbound ---- */

/** sendMessage takes at most 4096 characters: a longer text goes as several messages, split at a line break where it can. */
export function chunks(text: string, max = 4096): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const cut = rest.lastIndexOf('\n', max);
    const at = cut > max / 2 ? cut : max;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, '');
  }
  if (rest.length || !out.length) out.push(rest);
  return out;
}

/** sendMessage's parameters: plain text (no parse_mode: the words are sent as written), in the topic, as a reply, with buttons. */
export function sendMessageParams(o: { chatId: string; topicId?: number | null; text: string; replyTo?: number | null; buttons?: OutboundButton[] }): Record<string, unknown> {
  return {
    chat_id: o.chatId,
    text: o.text,
    ...(o.topicId ? { message_thread_id: o.topicId } : {}),
    ...(o.replyTo ? { reply_parameters: { message_id: o.replyTo, allow_sending_without_reply: true } } : {}),
    ...(o.buttons?.length ? { reply_markup: inlineKeyboard(o.buttons) } : {}),
    link_preview_options: { is_disabled: true },
  };
}

/** Where a send goes: a thread, or a person by their user id (their private chat with the bot has their id). */
export function targetOf(thread: ThreadRef | null, to: string | null | undefined): { chatId: string; topicId: number | null } | null {
  const t = parseThread(thread);
  if (t) return { chatId: t.chatId, topicId: t.topicId };
  const id = (to ?? '').trim().replace(/^telegram:/, '');
  return /^-?\d{1,20}$/.test(id) ? { chatId: id, topicId: null } : null;
}
