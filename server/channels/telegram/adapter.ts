import type { Db } from '@/db/client';
import type { ChannelAdapter, SendRequest } from '../adapter';
import type { Delivery } from '../message';
import { failedDelivery } from '../message';
import { editMessageText, sendDocument, sendMessage } from './api';
import { connectionById, connectionOf, connectionOfAssistant, redeemLinkCode, secretsOf } from './bots';
import { telegramEndpoints } from './endpoints';
import { audienceOfThread, chunks, messageRefOf, parseMessageRef, sendMessageParams, targetOf, threadOf } from './transform';
import { parseTelegramWebhook, verifyTelegramWebhook } from './webhook';

/*
 * Telegram (Bot API) behind the channel port (server/channels/adapter.ts): each assistant's own bot
 * (bots.ts), 1:1 and group chats, inline-keyboard buttons, files both ways (sendDocument, getFile).
 * Replies thread on the message they answer (reply_parameters); text over 4096 characters goes as
 * several messages; a file goes as a document after the text.
 */

async function send(db: Db, req: SendRequest): Promise<Delivery> {
  const row = await connectionById(db, req.connection.id);
  if (!row) return failedDelivery('the assistant’s Telegram bot is no longer connected');
  const target = targetOf(req.thread, req.to);
  if (!target) return failedDelivery(`"${req.to ?? req.thread ?? ''}" is not a Telegram chat or user id`);
  const { token } = await secretsOf(db, row);
  const thread = threadOf(row.externalId, target.chatId, target.topicId);
  const replyTo = parseMessageRef(req.replyTo)?.messageId ?? null;
  const parts = req.text.trim() ? chunks(req.text) : [];
  let first: Delivery | null = null;
  for (const [i, text] of parts.entries()) {
    const last = i === parts.length - 1;
    const d = await sendMessage(token, sendMessageParams({ chatId: target.chatId, topicId: target.topicId, text, replyTo: i === 0 ? replyTo : null, buttons: last ? req.buttons : undefined }));
    // A part that did not go (or may have) ends the send: what went is reported, nothing is repeated.
    if (d.state !== 'accepted') return first && i > 0 ? { state: 'unknown', providerMessageId: first.providerMessageId, reason: `only part of the message was sent: ${'reason' in d ? d.reason : d.state}` } : d;
    first ??= { state: 'accepted', providerMessageId: messageRefOf(thread, d.providerMessageId!) };
    // A card in parts is named by the part that carries its buttons: that is the message a press names and a close edits.
    if (last && req.buttons?.length) first = { state: 'accepted', providerMessageId: messageRefOf(thread, d.providerMessageId!) };
  }
  for (const f of req.files) {
    const params: Record<string, string> = { chat_id: target.chatId, ...(target.topicId ? { message_thread_id: String(target.topicId) } : {}) };
    const d = await sendDocument(token, params, f);
    if (d.state !== 'accepted') return first ? { state: 'unknown', providerMessageId: first.providerMessageId, reason: `the text went, a file did not: ${'reason' in d ? d.reason : d.state}` } : d;
    first ??= { state: 'accepted', providerMessageId: messageRefOf(thread, d.providerMessageId!) };
  }
  return first ?? failedDelivery('nothing to send: no text and no file');
}

export const telegramAdapter: ChannelAdapter = {
  channel: 'telegram',
  label: 'Telegram',
  capabilities: { buttons: true, files: true, groups: true, edits: true },
  endpoints: telegramEndpoints,
  async connection(db, key) {
    const row = await connectionById(db, key);
    return row ? connectionOf(row) : null;
  },
  async connectionFor(db, assistantId) {
    const row = await connectionOfAssistant(db, assistantId);
    return row ? connectionOf(row) : null;
  },
  redeemLink: (db, connection, code, person) => redeemLinkCode(db, connection.id, code, person.userId),
  verifyWebhook: verifyTelegramWebhook,
  parseWebhook: parseTelegramWebhook,
  send,
  audienceOf: audienceOfThread,
  directThread: (person) => threadOf(person.workspaceId, person.userId),
  async closeButtons(db, connection, at, line, words) {
    const row = await connectionById(db, connection.id);
    const ref = parseMessageRef(at.messageRef);
    if (!row || !ref) return;
    // A card of one message keeps its words; one sent in parts (over 4,096 characters) shows the line.
    const kept = words ? `${words}\n\n${line}` : line;
    await editMessageText((await secretsOf(db, row)).token, ref.chatId, ref.messageId, kept.length <= 4096 ? kept : line);
  },
};
