import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { z } from 'zod';
import type { Db } from '@/db/client';
import type { AssistantRow, ChatRow, UserRow } from '@/db/schema';
import type { RealtimeConfig } from '@/server/channels/realtime/config';
import { openConversation, type Conversation } from '@/server/channels/realtime/conversation';
import { logger } from '@/server/logger';
import { planLiveChat } from './live-voice-plan';
import { liveUsage } from './live-voice-usage';

/*
 * The browser's side of a live voice conversation (issue 48): the chat page's WebSocket, after
 * admission (live-voice.ts), framed for a page rather than for Twilio.
 *
 * Browser → Steward: binary frames are the person's audio (16-bit PCM, mono, little-endian,
 * 24 kHz), appended to the model's input as they come; text frames are JSON:
 * `{"type":"mark","name":…}` (the page played up to a mark it was sent) and `{"type":"end"}`.
 * Steward → browser: binary frames are the assistant's audio (same format), to be played in
 * order; text frames are JSON: `ready` (the model listens), `clear` (the person spoke over the
 * assistant: drop what has not played, at once), `mark` (the end of a reply's audio so far: send it
 * back once played), `caption` (`who`: person | assistant, `text`), and `ended` (`reason`) before
 * the socket closes. A conversation lasts at most MAX_MS, and while a budget covering the person
 * has room (live-voice-usage.ts): a spent one ends it, closing 1000 with the budget named.
 */

const MAX_MS = 30 * 60_000;

const Incoming = z.discriminatedUnion('type', [z.object({ type: z.literal('mark'), name: z.string().max(100) }), z.object({ type: z.literal('end') })]);

/** The reason as a close frame can carry it (at most 123 bytes of UTF-8), cut at a character with an ellipsis. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  const chars = Array.from(reason);
  while (Buffer.byteLength(chars.join('')) > 120) chars.pop();
  return `${chars.join('')}…`;
}

export type LiveParts = { chat: ChatRow; assistant: AssistantRow; owner: UserRow };

export function runLiveVoice(db: Db, ws: WebSocket, parts: LiveParts, realtime: RealtimeConfig): Promise<void> {
  return new Promise<void>((resolve) => {
    const sessionId = randomUUID();
    const log = { chatId: parts.chat.id, live: sessionId };
    let conversation: Conversation | null = null;
    let finished = false;

    const sendJson = (m: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    };
    const close = (code: number, reason: string) => {
      sendJson({ type: 'ended', reason });
      // A close frame's reason is at most 123 bytes (RFC 6455); the whole of it went in `ended`.
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, closeReason(reason));
    };
    const limit = setTimeout(() => close(1000, 'the conversation reached its time limit'), MAX_MS);

    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(limit);
      if (conversation) void conversation.finish().then(() => resolve());
      // Still opening: open() sees `finished` and ends there.
    };

    const usage = liveUsage(db, parts.chat, sessionId, realtime);
    /** Ends a conversation that never got a model session: what its usage held is let go. */
    const abandon = () => usage.close().catch((err: unknown) => logger.error({ err, ...log }, 'voice: a live conversation’s reservation could not be released'));

    const open = async () => {
      const spent = await usage.begin();
      if (spent || finished) {
        if (spent) {
          finished = true;
          clearTimeout(limit);
          close(1000, spent);
        }
        await abandon();
        return resolve();
      }
      const plan = await planLiveChat(db, parts, sessionId, usage, (reason) => close(1000, reason));
      if (finished) {
        await abandon();
        return resolve();
      }
      let c: Conversation;
      try {
        c = await openConversation(
          realtime,
          plan,
          {
            audio: (base64) => {
              if (ws.readyState === ws.OPEN) ws.send(Buffer.from(base64, 'base64'), { binary: true });
            },
            clear: () => sendJson({ type: 'clear' }),
            mark: (name) => sendJson({ type: 'mark', name }),
            caption: (who, text) => sendJson({ type: 'caption', who, text }),
            hangUp: () => close(1000, 'the assistant ended the conversation'),
            modelGone: (reason) => {
              logger.warn({ ...log, reason }, 'voice: the realtime session ended during a live conversation');
              close(1011, 'the voice model went away');
            },
          },
          log,
        );
      } catch (err) {
        logger.warn({ err, ...log }, 'voice: the realtime model could not be reached for live voice');
        finished = true;
        clearTimeout(limit);
        close(1011, 'the voice model could not be reached');
        await abandon();
        return resolve();
      }
      conversation = c;
      if (finished) return void c.finish().then(() => resolve());
      sendJson({ type: 'ready' });
    };

    ws.on('message', (data, isBinary) => {
      if (finished) return;
      if (isBinary) {
        const frame = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        // Whole 16-bit samples only; an odd byte is not audio of the agreed format.
        if (!frame.length || frame.length % 2) return;
        conversation?.appendAudio(frame.toString('base64'));
        return;
      }
      let json: unknown;
      try {
        json = JSON.parse(data.toString());
      } catch {
        return close(1008, 'not JSON');
      }
      const m = Incoming.safeParse(json);
      if (!m.success) return;
      if (m.data.type === 'mark') conversation?.played();
      else close(1000, 'the person ended the conversation');
    });
    ws.on('close', finish);
    ws.on('error', finish);

    open().catch((err: unknown) => {
      logger.error({ err, ...log }, 'voice: a live conversation could not start');
      finished = true;
      clearTimeout(limit);
      close(1011, 'failed');
      void abandon().then(() => resolve());
    });
  });
}
