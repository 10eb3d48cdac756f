import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A loopback Telegram Bot API (STEWARD_TELEGRAM_API_URL) that speaks its wire format: `POST
 * /bot<token>/<method>` with JSON or multipart/form-data, answers `{ok, result}` or `{ok: false,
 * error_code, description}`, serves files at `/file/bot<token>/<file_path>`, and delivers updates to
 * the webhook a bot set (setWebhook) with its secret in X-Telegram-Bot-Api-Secret-Token, as Telegram
 * does. It records what would have been sent; nothing is reported sent that it did not record.
 */

type Bot = { id: number; token: string; username: string; webhook: { url: string; secret: string | null } | null };
export type SentMessage = { token: string; botId: number; messageId: number; chatId: string; text: string; replyTo: number | null; buttons: Array<{ text: string; callback_data: string }>; topicId: number | null };
export type SentDocument = { token: string; botId: number; messageId: number; chatId: string; filename: string; contentType: string; content: Buffer; caption: string | null; topicId: number | null };
export type TgPerson = { id: number; first_name: string; last_name?: string; username?: string };

function parseMultipart(body: Buffer, contentType: string): Record<string, { value: string } | { filename: string; contentType: string; content: Buffer }> {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  const out: Record<string, { value: string } | { filename: string; contentType: string; content: Buffer }> = {};
  if (!boundary) return out;
  const sep = Buffer.from(`--${boundary}`);
  let at = body.indexOf(sep);
  while (at !== -1) {
    const next = body.indexOf(sep, at + sep.length);
    if (next === -1) break;
    const part = body.subarray(at + sep.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]+)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    const type = /Content-Type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? 'application/octet-stream';
    if (name) out[name] = filename !== undefined ? { filename, contentType: type, content: Buffer.from(content) } : { value: content.toString('utf8') };
    at = next;
  }
  return out;
}

export async function startTelegramFake() {
  const bots = new Map<string, Bot>();
  const files = new Map<string, { content: Buffer; path: string }>();
  const sent: SentMessage[] = [];
  const documents: SentDocument[] = [];
  const answered: Array<{ token: string; callbackQueryId: string; text: string }> = [];
  const edits: Array<{ token: string; chatId: string; messageId: number; text: string; keyboard: unknown }> = [];
  const calls: Array<{ method: string; botId: number | null }> = [];
  let messageIds = 1000;
  let updateIds = 5000;
  let botIds = 7_000_000_000;
  const state = { failNext: null as null | { method: string; code: number; description: string } };

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const answer = (status: number, json: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && fileMatch) {
        const bot = bots.get(fileMatch[1]!);
        const file = [...files.values()].find((f) => f.path === decodeURIComponent(fileMatch[2]!));
        if (!bot || !file) return answer(404, { ok: false, error_code: 404, description: 'Not Found' });
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        return res.end(file.content);
      }
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!m || req.method !== 'POST') return answer(404, { ok: false, error_code: 404, description: 'Not Found' });
      const bot = bots.get(m[1]!);
      const method = m[2]!;
      calls.push({ method, botId: bot?.id ?? null });
      if (!bot) return answer(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      if (state.failNext?.method === method) {
        const f = state.failNext;
        state.failNext = null;
        return answer(f.code, { ok: false, error_code: f.code, description: f.description });
      }
      const type = req.headers['content-type'] ?? '';
      const form = type.startsWith('multipart/form-data') ? parseMultipart(body, type) : null;
      const p: Record<string, unknown> = form ? Object.fromEntries(Object.entries(form).map(([k, v]) => [k, 'value' in v ? v.value : v])) : body.length ? JSON.parse(body.toString('utf8')) : {};
      const chat = (id: unknown) => ({ id: Number(id), type: Number(id) < 0 ? 'group' : 'private' });
      switch (method) {
        case 'getMe':
          return answer(200, { ok: true, result: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username, can_join_groups: true } });
        case 'setWebhook':
          if (typeof p.url !== 'string' || !/^https?:\/\//.test(p.url)) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook' });
          bot.webhook = { url: p.url, secret: typeof p.secret_token === 'string' ? p.secret_token : null };
          return answer(200, { ok: true, result: true, description: 'Webhook was set' });
        case 'deleteWebhook':
          bot.webhook = null;
          return answer(200, { ok: true, result: true });
        case 'sendMessage': {
          const text = String(p.text ?? '');
          if (!text) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
          if (text.length > 4096) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: message is too long' });
          const markup = p.reply_markup as { inline_keyboard?: Array<Array<{ text: string; callback_data: string }>> } | undefined;
          const messageId = ++messageIds;
          sent.push({
            token: bot.token,
            botId: bot.id,
            messageId,
            chatId: String(p.chat_id),
            text,
            replyTo: (p.reply_parameters as { message_id?: number } | undefined)?.message_id ?? null,
            buttons: markup?.inline_keyboard?.flat() ?? [],
            topicId: typeof p.message_thread_id === 'number' ? p.message_thread_id : null,
          });
          return answer(200, { ok: true, result: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: chat(p.chat_id), text } });
        }
        case 'sendDocument': {
          const doc = form?.document;
          if (!doc || 'value' in doc) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: there is no document in the request' });
          const messageId = ++messageIds;
          documents.push({
            token: bot.token,
            botId: bot.id,
            messageId,
            chatId: String(p.chat_id),
            filename: doc.filename,
            contentType: doc.contentType,
            content: doc.content,
            caption: typeof p.caption === 'string' ? p.caption : null,
            // multipart fields are strings
            topicId: typeof p.message_thread_id === 'string' && p.message_thread_id ? Number(p.message_thread_id) : null,
          });
          return answer(200, { ok: true, result: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: chat(p.chat_id), document: { file_id: `sent-${messageId}`, file_name: doc.filename } } });
        }
        case 'getFile': {
          const file = files.get(String(p.file_id));
          if (!file) return answer(400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
          return answer(200, { ok: true, result: { file_id: p.file_id, file_unique_id: `u${p.file_id}`, file_size: file.content.length, file_path: file.path } });
        }
        case 'answerCallbackQuery':
          answered.push({ token: bot.token, callbackQueryId: String(p.callback_query_id), text: String(p.text ?? '') });
          return answer(200, { ok: true, result: true });
        case 'editMessageText':
          edits.push({ token: bot.token, chatId: String(p.chat_id), messageId: Number(p.message_id), text: String(p.text ?? ''), keyboard: p.reply_markup ?? null });
          return answer(200, { ok: true, result: { message_id: Number(p.message_id), chat: chat(p.chat_id), date: 0, text: p.text } });
        default:
          return answer(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const botOf = (token: string) => {
    const bot = bots.get(token);
    if (!bot) throw new Error('unknown bot');
    return bot;
  };

  /** Posts an update to the bot's webhook with its secret (`secret: null` leaves the header out; a string sends that one instead). */
  async function deliver(token: string, update: Record<string, unknown>, opts: { secret?: string | null } = {}) {
    const bot = botOf(token);
    if (!bot.webhook) throw new Error('the bot has no webhook');
    const secret = opts.secret === undefined ? bot.webhook.secret : opts.secret;
    const res = await fetch(bot.webhook.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(secret ? { 'X-Telegram-Bot-Api-Secret-Token': secret } : {}) },
      body: JSON.stringify(update),
    });
    return { status: res.status, text: await res.text(), updateId: update.update_id as number };
  }

  return {
    apiUrl: base,
    state,
    sent,
    documents,
    answered,
    edits,
    calls,
    bot(token: string) {
      return botOf(token);
    },
    /** A bot as @BotFather makes one: its token. */
    createBot(username = `steward_test_${randomBytes(3).toString('hex')}_bot`) {
      const id = ++botIds;
      const token = `${id}:AA${randomBytes(24).toString('base64url')}`;
      bots.set(token, { id, token, username, webhook: null });
      return { token, id: String(id), username };
    },
    /** A file a person sends, kept where getFile finds it. */
    addFile(content: Buffer) {
      const fileId = `BQAC${randomBytes(8).toString('hex')}`;
      files.set(fileId, { content, path: `documents/file_${files.size}.bin` });
      return fileId;
    },
    /** A message update: in the private chat with `from` unless a group chat is given; in a topic (a forum's, or of a private chat in threaded mode) when `topic` is. */
    message(
      from: TgPerson,
      fields: { text?: string; chat?: { id: number; type: 'group' | 'supergroup'; title?: string }; topic?: number; document?: { file_id: string; file_name?: string; mime_type?: string }; caption?: string } = {},
    ) {
      const chat = fields.chat ?? { id: from.id, type: 'private' as const, first_name: from.first_name };
      return {
        update_id: ++updateIds,
        message: {
          message_id: ++messageIds,
          from: { is_bot: false, ...from },
          chat,
          date: Math.floor(Date.now() / 1000),
          ...(fields.topic ? { message_thread_id: fields.topic, is_topic_message: true } : {}),
          ...(fields.text !== undefined ? { text: fields.text } : {}),
          ...(fields.document ? { document: fields.document } : {}),
          ...(fields.caption ? { caption: fields.caption } : {}),
        },
      };
    },
    /** A press of an inline button on a message the bot sent. */
    press(from: TgPerson, on: SentMessage, data: string) {
      return {
        update_id: ++updateIds,
        callback_query: {
          id: `cq${randomBytes(6).toString('hex')}`,
          from: { is_bot: false, ...from },
          chat_instance: '1',
          data,
          message: {
            message_id: on.messageId,
            chat: { id: Number(on.chatId), type: Number(on.chatId) < 0 ? 'group' : 'private' },
            date: Math.floor(Date.now() / 1000),
            text: on.text,
            ...(on.topicId ? { message_thread_id: on.topicId, is_topic_message: true } : {}),
          },
        },
      };
    },
    deliver,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type TelegramFake = Awaited<ReturnType<typeof startTelegramFake>>;
