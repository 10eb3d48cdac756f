import { timingSafeEqual } from 'node:crypto';
import type { Db } from '@/db/client';
import type { InboundEvent, Verified, WebhookRequest } from '../adapter';
import { parseWebhookJson } from '../webhook-json';
import { answerCallbackQuery, downloadFile } from './api';
import { connectionById, secretsOf } from './bots';
import { personOf, TgUpdate, parseUpdate } from './transform';

/*
 * Telegram's webhook for one bot (setWebhook with a secret_token): every update carries the secret
 * in X-Telegram-Bot-Api-Secret-Token, compared in constant time with the one sealed for this bot;
 * a request without it, or with another, is refused before anything is read or stored. Telegram
 * signs nothing else, so the secret is the proof: an update that carries it is the bot's own, and
 * its `from` is the Telegram user Telegram says wrote (proven as that user, not as anyone in Steward).
 */

const HEADER = 'x-telegram-bot-api-secret-token';

export async function verifyTelegramWebhook(db: Db, req: WebhookRequest): Promise<Verified> {
  const given = req.headers.get(HEADER);
  if (!given) return { ok: false, status: 401, reason: `${HEADER} is missing` };
  const row = await connectionById(db, req.connection.id);
  if (!row) return { ok: false, status: 404, reason: 'no such bot' };
  const { webhookSecret } = await secretsOf(db, row);
  const a = Buffer.from(given);
  const b = Buffer.from(webhookSecret);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, status: 401, reason: `${HEADER} does not match this bot’s secret` };
  return { ok: true };
}

const parseBody = (raw: Buffer): TgUpdate => parseWebhookJson(TgUpdate, raw);

/** The verified update in the port's common form; files and the press's acknowledgement reach Telegram only when the core asks. */
export async function parseTelegramWebhook(db: Db, req: WebhookRequest): Promise<InboundEvent> {
  const botId = req.connection.externalId;
  const u = parseUpdate(parseBody(req.rawBody), botId);
  if (u.kind === 'ignored') return u;
  const token = async () => {
    const row = await connectionById(db, req.connection.id);
    return row ? (await secretsOf(db, row)).token : null;
  };
  if (u.kind === 'press') {
    return {
      kind: 'press',
      externalId: u.externalId,
      person: personOf(botId, u.from, true),
      binding: u.binding,
      decision: u.decision,
      shownIn: { thread: u.thread, messageRef: u.messageRef },
      acknowledge: async (text) => {
        const t = await token();
        if (t) await answerCallbackQuery(t, u.callbackId, text);
      },
    };
  }
  return {
    kind: 'message',
    externalId: u.externalId,
    person: personOf(botId, u.from, true),
    thread: u.thread,
    audience: u.chat.type === 'private' ? { kind: 'direct', person: u.from.id } : { kind: 'room', where: `the Telegram group “${u.chat.title ?? u.chat.id}”` },
    messageRef: u.messageRef,
    text: u.text,
    linkCode: u.linkCode,
    files: u.files.map((f) => ({
      filename: f.filename,
      contentType: f.contentType,
      fetch: async () => {
        const t = await token();
        if (!t) return { problem: 'the bot was disconnected' };
        const got = await downloadFile(t, f.fileId);
        return 'problem' in got ? got : { filename: f.filename, contentType: f.contentType, content: got.content };
      },
    })),
  };
}
