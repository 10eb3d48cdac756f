import { and, eq, isNull } from 'drizzle-orm';
import type WebSocket from 'ws';
import type { Db } from '@/db/client';
import { voiceCalls, type VoiceCallRow } from '@/db/schema';
import type { RealtimeConfig } from '@/server/channels/realtime/config';
import { openConversation, type Conversation } from '@/server/channels/realtime/conversation';
import { liveUsage, type LiveUsage, type UsageNames } from '@/server/chats/live-voice-usage';
import { MediaMessage, outClear, outMark, outMedia } from '@/server/channels/twilio/media-payloads';
import { logger } from '@/server/logger';
import { verifyStreamToken } from './voice-stream-token';
import { BUDGET_SPENT } from './voice-calls';
import { planCall, type CallPlan } from './voice-realtime-plan';

/*
 * One Twilio media stream bridged to the realtime model (issue 48): the Twilio side of it. The
 * model's side (audio out, barge-in, transcripts, tools, end_call) is the conversation shared
 * with the hosted app's live voice (server/channels/realtime/conversation.ts); this file frames
 * it for Twilio: media, `clear` and `mark` messages on the stream's streamSid.
 *
 * Admission: nothing is read but Twilio's `connected` and `start` messages until the start's
 * `token` parameter verifies (voice-stream-token.ts) for the start's CallSid, and the call's row
 * takes this stream (stream_sid, once). Anything else closes the socket (1008) and opens nothing.
 * A start that does not come within START_MS closes it too.
 *
 * Then audio flows both ways untouched (μ-law 8 kHz): Twilio's frames are appended to the model's
 * input buffer; the model's audio deltas are forwarded to Twilio as they come, each response
 * followed by a mark, whose return Twilio reports once played.
 *
 * The end: the caller hangs up (Twilio's `stop`, or the socket closes), the assistant calls
 * end_call (the stream is closed once its goodbye has played, and Twilio follows the TwiML after
 * <Connect>: the `streamed` step hangs up), or the model's session fails (the call is marked so and
 * the `streamed` step carries the call on in turns).
 *
 * Usage and budgets (chats/live-voice-usage.ts, as the chat page's live voice): each response.done
 * is a model call of the call's chat (a placed call's: of the task run that placed it,
 * placed-call-usage.ts), charged to the budgets covering the owner, the next response held ahead. A budget spent at the start opens no model session; one spent during the call ends
 * the stream after the response that spent it. Either way the row's reason says `budget_spent`
 * before the stream closes, and the `streamed` step goes on without the model (voice-inbound.ts,
 * voice-outbound.ts).
 */

const START_MS = 10_000;

/** A call's reservations are `call:<callId>:<n>`; a spent budget's message names the call. */
const CALL_USAGE: UsageNames = { ref: 'call', what: 'The live call' };

export type BridgeOptions = { realtime: RealtimeConfig; now?: () => Date };

async function admit(db: Db, token: string, callSid: string, streamSid: string): Promise<VoiceCallRow | null> {
  const verified = await verifyStreamToken(db, token, callSid);
  if (!verified) return null;
  const [call] = await db
    .update(voiceCalls)
    .set({ streamSid, media: 'realtime' })
    .where(and(eq(voiceCalls.id, verified.callId), eq(voiceCalls.callSid, callSid), isNull(voiceCalls.streamSid), isNull(voiceCalls.endedAt)))
    .returning();
  return call ?? null;
}

export function runMediaStream(db: Db, ws: WebSocket, opts: BridgeOptions): Promise<void> {
  return new Promise<void>((resolve) => {
    let call: VoiceCallRow | null = null;
    let conversation: Conversation | null = null;
    let admitting = false;
    let finished = false;
    let failure: string | null = null;

    const startTimer = setTimeout(() => close(1008, 'no authenticated start'), START_MS);

    const send = (data: string) => {
      if (ws.readyState === ws.OPEN) ws.send(data);
    };
    function close(code: number, reason: string) {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    }

    /** Ends the stream's conversation (once it exists: a stream that ends while it opens is finished when it has). */
    const finish = (why: string | null) => {
      if (finished) return;
      finished = true;
      failure = why;
      clearTimeout(startTimer);
      if (conversation) return void wrapUp(conversation);
      // While a start is being admitted, what follows it (open) sees `finished` and ends there.
      if (!admitting) resolve();
    };
    const wrapUp = (c: Conversation) => {
      const failed = failure;
      const row = call;
      void c
        .finish(async () => {
          if (row && failed) await db.update(voiceCalls).set({ reason: `realtime_failed: ${failed}`.slice(0, 500) }).where(eq(voiceCalls.id, row.id));
        })
        .then(() => resolve());
    };

    /** A budget covering the owner is spent: the call's row says so (for the `streamed` step, written first), and the stream ends. */
    const budgetSpent = async (admitted: VoiceCallRow, message: string) => {
      logger.info({ callId: admitted.id, reason: message }, 'voice: a live call stopped, a budget is spent');
      await db.update(voiceCalls).set({ reason: `${BUDGET_SPENT}: ${message}`.slice(0, 500) }).where(eq(voiceCalls.id, admitted.id));
      close(1000, 'budget spent');
      finish(null);
    };

    /** The model cannot serve this call: the row says so and the `streamed` step carries the call on in turns. */
    const cannotOpen = async (admitted: VoiceCallRow, err: unknown, ended: () => Promise<void>) => {
      logger.warn({ err, callId: admitted.id }, 'voice: the realtime model could not be reached; the call goes on in turns');
      const reason = (err as Error).message;
      await db.update(voiceCalls).set({ reason: `realtime_failed: ${reason}`.slice(0, 500) }).where(eq(voiceCalls.id, admitted.id));
      await ended();
      finished = true;
      close(1011, 'model unavailable');
      resolve();
    };

    const open = async (admitted: VoiceCallRow, streamSid: string) => {
      const planned = await planCall(db, admitted);
      if (!planned) {
        close(1000, 'no conversation on this call');
        return resolve();
      }
      // Each response is a model call of the call's chat or placing run, charged to the owner's budgets (chats/live-voice-usage.ts).
      let usage: LiveUsage;
      try {
        usage = liveUsage(db, planned.home, admitted.id, opts.realtime, CALL_USAGE);
      } catch (err) {
        // STEWARD_REALTIME_PRICE is malformed: as a model that cannot be reached, never a dropped call.
        return cannotOpen(admitted, err, planned.plan.ended);
      }
      const plan: CallPlan = {
        ...planned.plan,
        used: async (u) => {
          const spent = await usage.record(u);
          if (spent) await budgetSpent(admitted, spent);
        },
        ended: async () => {
          await planned.plan.ended();
          // A message's chat is opened by its end (the plan's), so the call's chat is read after it.
          const [row] = await db.select({ chatId: voiceCalls.chatId }).from(voiceCalls).where(eq(voiceCalls.id, admitted.id));
          await usage.close(row?.chatId ?? null);
        },
      };
      if (finished) {
        await plan.ended();
        return resolve();
      }
      // Admission: no model session while a budget covering the owner is spent; the call goes on without one.
      const spent = await usage.begin();
      if (spent || finished) {
        if (spent) await budgetSpent(admitted, spent);
        await plan.ended();
        return resolve();
      }
      let c: Conversation;
      try {
        c = await openConversation(
          opts.realtime,
          plan,
          {
            audio: (payload) => send(outMedia(streamSid, payload)),
            clear: () => send(outClear(streamSid)),
            mark: (name) => send(outMark(streamSid, name)),
            hangUp: () => close(1000, 'call ended'),
            modelGone: (reason) => {
              logger.warn({ callId: admitted.id, reason }, 'voice: the realtime session ended during a call');
              finish(reason);
              close(1011, 'model session ended');
            },
          },
          { callId: admitted.id },
        );
      } catch (err) {
        return cannotOpen(admitted, err, plan.ended);
      }
      conversation = c;
      if (finished) wrapUp(c);
    };

    ws.on('message', (data, isBinary) => {
      if (finished || isBinary) return;
      let json: unknown;
      try {
        json = JSON.parse(data.toString());
      } catch {
        return close(1008, 'not JSON');
      }
      const m = MediaMessage.safeParse(json);
      if (!m.success) return;
      const msg = m.data;
      if (msg.event === 'connected') return;
      if (msg.event === 'start') {
        if (admitting || call) return;
        admitting = true;
        const token = msg.start.customParameters.token ?? '';
        void (async () => {
          const admitted = await admit(db, token, msg.start.callSid, msg.streamSid);
          if (!admitted) {
            logger.warn({ callSid: msg.start.callSid }, 'voice: a media stream without a valid token for its call was refused');
            close(1008, 'unauthenticated');
            return resolve();
          }
          clearTimeout(startTimer);
          call = admitted;
          await open(admitted, msg.streamSid);
        })().catch((err: unknown) => {
          logger.error({ err }, 'voice: a media stream could not start');
          close(1011, 'failed');
          resolve();
        });
        return;
      }
      if (!conversation) return;
      if (msg.event === 'media') {
        if (msg.media.track && msg.media.track !== 'inbound') return;
        conversation.appendAudio(msg.media.payload);
        return;
      }
      if (msg.event === 'mark') return conversation.played();
      if (msg.event === 'stop') {
        finish(null);
        close(1000, 'stream stopped');
      }
    });
    ws.on('close', () => finish(null));
    ws.on('error', () => finish(null));
  });
}
