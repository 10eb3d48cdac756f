import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { WebhookRequest } from '@/server/channels/adapter';
import { telegramAdapter } from '@/server/channels/telegram/adapter';
import { call, newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { startTelegramFake, type TelegramFake, type TgPerson } from '../helpers/telegram-fake';
import { describeAdapterContract, userWithAssistant, type Connected, type ContractPerson, type Conversation } from './adapter-contract';

/*
 * Telegram against the channel port's contract (adapter-contract.ts): the assistant's own bot
 * connected through the API as a user does, the loopback Bot API (tests/helpers/telegram-fake.ts)
 * as Telegram, updates built as Telegram posts them with the secret_token the bot's setWebhook
 * named. Conversations: the person's private chat, a private chat topic (threaded mode: still the
 * person alone), a supergroup and a forum topic in it (rooms).
 */

const app = useTestServer();
let tg: TelegramFake;
const VARS = ['STEWARD_TELEGRAM_API_URL', 'STEWARD_PROVIDER_ALLOWED_RANGES'];
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  tg = await startTelegramFake();
  Object.assign(process.env, { STEWARD_TELEGRAM_API_URL: tg.apiUrl, STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32' });
});
afterAll(async () => {
  await tg?.close();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const HEADER = 'X-Telegram-Bot-Api-Secret-Token';
let people = 610_000;
let groups = 1_000_000_000_000;

/** A user of a new account hires an assistant and connects a new bot to it, as on the settings page. */
async function connect(): Promise<Connected> {
  const owner = await userWithAssistant(app(), await newAccount(app()));
  const bot = tg.createBot();
  const put = await call(app(), `/assistants/${owner.assistantId}/telegram-bot`, { method: 'PUT', key: owner.key, body: { token: bot.token } });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const connection = await telegramAdapter.connection(app().database.db, put.body.telegramBot.id);
  if (!connection) throw new Error('the bot’s connection was not found');
  const secret = tg.bot(bot.token).webhook!.secret!;

  const tgPerson = (p: ContractPerson): TgPerson => ({ id: Number(p.userId), first_name: `P${p.userId}` });
  const request = (update: unknown, header: string | null): WebhookRequest => ({
    headers: new Headers(header ? { [HEADER]: header } : {}),
    rawBody: Buffer.from(JSON.stringify(update)),
    connection,
  });
  const delivered = (update: unknown) => ({
    genuine: request(update, secret),
    unsigned: request(update, null),
    wronglySigned: request(update, randomBytes(32).toString('base64url')),
  });
  /** `<chat id>` or `<chat id>/<topic id>`: where the fake says a message went. */
  const wireOf = (chatId: string, topicId: number | null) => (topicId ? `${chatId}/${topicId}` : chatId);
  const placeOf = (from: ContractPerson, where: Conversation) => {
    const [chatId, topic] = where.wireId.split('/');
    const id = Number(chatId);
    if (id > 0 && chatId !== from.userId) throw new Error('a private chat is with the person who writes in it');
    return { ...(id < 0 ? { chat: { id, type: 'supergroup' as const, title: 'Project room' } } : {}), ...(topic ? { topic: Number(topic) } : {}) };
  };
  const mine = <T extends { token: string }>(list: T[]) => list.filter((x) => x.token === bot.token);
  const sent = () =>
    mine(tg.sent).map((m) => ({
      wireId: wireOf(m.chatId, m.topicId),
      id: String(m.messageId),
      text: m.text,
      replyTo: m.replyTo === null ? null : String(m.replyTo),
      buttons: m.buttons.map((b) => ({ text: b.text, data: b.callback_data })),
    }));

  return {
    connection,
    newPerson: () => ({ workspaceId: bot.id, userId: String(++people) }),
    direct: (p) => ({ label: 'private chat', audience: 'direct', wireId: p.userId }),
    others(p) {
      const group = String(-++groups);
      return [
        { label: 'private chat topic', audience: 'direct', wireId: `${p.userId}/3` },
        { label: 'supergroup', audience: 'room', wireId: group },
        { label: 'forum topic', audience: 'room', wireId: `${group}/7` },
      ];
    },
    address: (p) => p.userId,
    message: (from, where, text) => delivered(tg.message(tgPerson(from), { text, ...placeOf(from, where) })),
    messageWithFile(from, where, file) {
      const fileId = tg.addFile(file.content);
      return delivered(tg.message(tgPerson(from), { document: { file_id: fileId, file_name: file.filename, mime_type: file.contentType }, ...placeOf(from, where) }));
    },
    malformed: () => delivered({ update_id: 'not a number', message: { text: 'hello' } }),
    notAMessage(from, where) {
      const u = tg.message(tgPerson(from), { text: 'edited', ...placeOf(from, where) });
      return delivered({ update_id: u.update_id, edited_message: u.message });
    },
    press(from, on, data) {
      const card = mine(tg.sent).find((m) => String(m.messageId) === on.id);
      if (!card) throw new Error('no such message of this bot');
      return delivered(tg.press(tgPerson(from), card, data));
    },
    sent,
    files: () => mine(tg.documents).map((d) => ({ wireId: wireOf(d.chatId, d.topicId), id: String(d.messageId), filename: d.filename, contentType: d.contentType, content: d.content })),
    edits: () =>
      mine(tg.edits).map((e) => ({
        // editMessageText names the chat and the message, not its topic: the message's own place.
        wireId: sent().find((m) => m.id === String(e.messageId))?.wireId ?? e.chatId,
        id: String(e.messageId),
        text: e.text,
        buttons: ((e.keyboard as { inline_keyboard?: unknown[][] } | null)?.inline_keyboard ?? []).flat().length,
      })),
    acknowledged: () => mine(tg.answered).map((x) => x.text),
    refuseNext(what) {
      tg.state.failNext = { method: what === 'message' ? 'sendMessage' : 'sendDocument', code: 400, description: 'Bad Request: chat not found' };
    },
  };
}

describeAdapterContract({ adapter: telegramAdapter, db: () => app().database.db, provesSender: true, connect });
