import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { providerRequest } from '../twilio/http';
import type { Delivery } from '../message';
import { TgMessage, TgUser } from './transform';

/*
 * The Telegram Bot API methods Steward calls, at STEWARD_TELEGRAM_API_URL (default
 * https://api.telegram.org): `POST <base>/bot<token>/<method>` with JSON, or multipart/form-data to
 * upload a file (sendDocument); files are downloaded from `<base>/file/bot<token>/<file_path>`
 * (getFile names the path). Every answer is `{ok, result}` or `{ok: false, error_code,
 * description, parameters.retry_after}`. Calls follow the outbound address rule of every provider
 * (an inner address only when STEWARD_PROVIDER_ALLOWED_RANGES allows it). The token is part of the
 * URL: it is never logged or returned.
 */

export const telegramApiBase = () => (process.env.STEWARD_TELEGRAM_API_URL ?? 'https://api.telegram.org').replace(/\/+$/, '');

const Answer = z.object({ ok: z.boolean(), result: z.unknown().optional(), error_code: z.number().optional(), description: z.string().optional() }).loose();

export type BotCall<T> = { ok: true; result: T } | { ok: false; error: string; status: number | null; reached: boolean };

type Part = { name: string; value: string } | { name: string; filename: string; contentType: string; content: Buffer };

/** multipart/form-data, as the Bot API takes an uploaded file. */
export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `steward${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const safeName = (s: string) => s.replace(/["\r\n\\]/g, '_');
    const head =
      'content' in p
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${safeName(p.filename)}"\r\nContent-Type: ${p.contentType}\r\n\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`;
    chunks.push(Buffer.from(head), 'content' in p ? p.content : Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function callBot<T>(token: string, method: string, payload: { json: Record<string, unknown> } | { form: Part[] }, parse: z.ZodType<T>): Promise<BotCall<T>> {
  const url = new URL(`${telegramApiBase()}/bot${token}/${method}`);
  const encoded = 'json' in payload ? { body: JSON.stringify(payload.json), contentType: 'application/json' } : multipart(payload.form);
  const answer = await providerRequest({ method: 'POST', url, headers: { 'Content-Type': encoded.contentType }, body: encoded.body });
  if (answer.status === null) return { ok: false, error: `Telegram could not be reached: ${answer.error}`, status: null, reached: answer.reached };
  let json: unknown = null;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    // not JSON: judged below
  }
  const parsed = Answer.safeParse(json);
  if (!parsed.success) return { ok: false, error: `unexpected answer from Telegram (HTTP ${answer.status})`, status: answer.status, reached: answer.status >= 500 };
  if (!parsed.data.ok) return { ok: false, error: parsed.data.description ?? `error ${parsed.data.error_code ?? answer.status}`, status: parsed.data.error_code ?? answer.status, reached: false };
  const result = parse.safeParse(parsed.data.result);
  if (!result.success) return { ok: false, error: `Telegram answered ${method} with an unexpected result`, status: answer.status, reached: true };
  return { ok: true, result: result.data };
}

export const getMe = (token: string) => callBot(token, 'getMe', { json: {} }, TgUser.extend({ username: z.string().min(1).max(64) }));

export const setWebhook = (token: string, url: string, secretToken: string) =>
  callBot(token, 'setWebhook', { json: { url, secret_token: secretToken, allowed_updates: ['message', 'callback_query'], drop_pending_updates: false } }, z.literal(true));

export const deleteWebhook = (token: string) => callBot(token, 'deleteWebhook', { json: { drop_pending_updates: false } }, z.literal(true));

const Sent = TgMessage.pick({ message_id: true, chat: true });

/** A send's outcome: accepted with its message id, refused (nothing sent), or unknown (the request may have arrived). */
const delivered = (c: BotCall<{ message_id: number }>): Delivery =>
  c.ok ? { state: 'accepted', providerMessageId: String(c.result.message_id) } : c.reached ? { state: 'unknown', providerMessageId: null, reason: c.error } : { state: 'failed', providerMessageId: null, reason: c.error };

export async function sendMessage(token: string, params: Record<string, unknown>): Promise<Delivery> {
  return delivered(await callBot(token, 'sendMessage', { json: params }, Sent));
}

export async function sendDocument(token: string, params: Record<string, string>, file: { filename: string; contentType: string; content: Buffer }): Promise<Delivery> {
  const form: Part[] = [...Object.entries(params).map(([name, value]) => ({ name, value })), { name: 'document', filename: file.filename, contentType: file.contentType, content: file.content }];
  return delivered(await callBot(token, 'sendDocument', { form }, Sent));
}

export const answerCallbackQuery = (token: string, callbackQueryId: string, text: string) =>
  callBot(token, 'answerCallbackQuery', { json: { callback_query_id: callbackQueryId, text: text.slice(0, 200) } }, z.literal(true));

/** Replaces a message's text and removes its inline keyboard (a decided approval). */
export const editMessageText = (token: string, chatId: string, messageId: number, text: string) =>
  callBot(token, 'editMessageText', { json: { chat_id: chatId, message_id: messageId, text: text.slice(0, 4096), reply_markup: { inline_keyboard: [] } } }, z.unknown());

/** Bots may download files of up to 20 MB; the guarded request keeps at most 8 MB of an answer, so that is the limit here. */
export const MAX_DOWNLOAD = 8 * 1024 * 1024;

/** getFile, then the file's bytes; a problem names why nothing was fetched. */
export async function downloadFile(token: string, fileId: string): Promise<{ content: Buffer; contentType: string | null } | { problem: string }> {
  const info = await callBot(token, 'getFile', { json: { file_id: fileId } }, z.object({ file_path: z.string().min(1).max(1024).optional(), file_size: z.number().optional() }).loose());
  if (!info.ok) return { problem: info.error };
  if (!info.result.file_path) return { problem: 'Telegram keeps no downloadable copy of this file' };
  if ((info.result.file_size ?? 0) > MAX_DOWNLOAD) return { problem: 'larger than the 8 MB Steward fetches from Telegram' };
  const url = new URL(`${telegramApiBase()}/file/bot${token}/${info.result.file_path.split('/').map(encodeURIComponent).join('/')}`);
  const got = await providerRequest({ method: 'GET', url });
  if (got.status === null) return { problem: `the file could not be fetched: ${got.error}` };
  if (got.status !== 200) return { problem: `the file could not be fetched (HTTP ${got.status})` };
  if (got.body.length > MAX_DOWNLOAD || (info.result.file_size && got.body.length !== info.result.file_size)) return { problem: 'the file did not arrive whole' };
  return { content: got.body, contentType: got.contentType };
}
