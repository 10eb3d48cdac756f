import { and, eq, isNull } from 'drizzle-orm';
import type WebSocket from 'ws';
import type { Db } from '@/db/client';
import { voiceCalls, type VoiceCallRow } from '@/db/schema';
import type { RealtimeConfig } from '@/server/channels/realtime/config';
import type { RealtimeServerEvent } from '@/server/channels/realtime/events';
import { openRealtimeSession, type RealtimeSession } from '@/server/channels/realtime/session';
import { MediaMessage, outClear, outMark, outMedia } from '@/server/channels/twilio/media-payloads';
import { logger } from '@/server/logger';
import { verifyStreamToken } from './voice-stream-token';
import { planCall, type CallPlan } from './voice-realtime-plan';

/*
 * One Twilio media stream bridged to the realtime model (issue 48).
 *
 * Admission: nothing is read but Twilio's `connected` and `start` messages until the start's
 * `token` parameter verifies (voice-stream-token.ts) for the start's CallSid, and the call's row
 * takes this stream (stream_sid, once). Anything else closes the socket (1008) and opens nothing.
 * A start that does not come within START_MS closes it too.
 *
 * Then audio flows both ways untouched (μ-law 8 kHz): Twilio's frames are appended to the model's
 * input buffer; the model's audio deltas are forwarded to Twilio as they come, each response
 * followed by a mark. Barge-in: when the model's voice activity detection hears the caller start
 * speaking while the assistant's audio may still be playing (a response under way, or audio sent
 * whose mark has not come back), Twilio is told to `clear` its playback at once and the response
 * is cancelled. Words of both sides, tool calls and the end go to the call's plan
 * (voice-realtime-plan.ts).
 *
 * The end: the caller hangs up (Twilio's `stop`, or the socket closes), the assistant calls
 * end_call (the stream is closed once its goodbye has played, and Twilio follows the TwiML after
 * <Connect>: the `streamed` step hangs up), or the model's session fails (the call is marked so and
 * the `streamed` step carries the call on in turns).
 */

const START_MS = 10_000;
/** How long a goodbye may play before the stream is closed anyway. */
const GOODBYE_MS = 15_000;

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
    let streamSid: string | null = null;
    let call: VoiceCallRow | null = null;
    let plan: CallPlan | null = null;
    let model: RealtimeSession | null = null;
    let admitting = false;
    let finished = false;
    /** A response is being produced; audio has been sent whose closing mark has not come back. */
    let responding = false;
    let unplayedMarks = 0;
    let audioSinceMark = false;
    let marks = 0;
    let endAfterPlayback = false;
    let goodbyeTimer: ReturnType<typeof setTimeout> | null = null;
    /** Work for the database, in the order the events came (transcript lines, tool calls). */
    let queue: Promise<unknown> = Promise.resolve();
    const later = (work: () => Promise<unknown>) => {
      queue = queue.then(work).catch((err: unknown) => logger.error({ err, callId: call?.id }, 'voice: a realtime call could not record an event'));
    };

    const startTimer = setTimeout(() => close(1008, 'no authenticated start'), START_MS);

    const send = (data: string) => {
      if (ws.readyState === ws.OPEN) ws.send(data);
    };
    function close(code: number, reason: string) {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    }

    const finish = (failure: string | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(startTimer);
      if (goodbyeTimer) clearTimeout(goodbyeTimer);
      model?.close();
      const c = call;
      const p = plan;
      later(async () => {
        if (c && failure) await db.update(voiceCalls).set({ reason: `realtime_failed: ${failure}`.slice(0, 500) }).where(eq(voiceCalls.id, c.id));
        await p?.ended();
      });
      void queue.then(() => resolve());
    };

    const markPlayback = () => {
      if (!streamSid || !audioSinceMark) return;
      audioSinceMark = false;
      unplayedMarks++;
      send(outMark(streamSid, `r${++marks}`));
    };

    const onModel = (e: RealtimeServerEvent) => {
      if (finished || !streamSid) return;
      switch (e.kind) {
        case 'audio':
          responding = true;
          audioSinceMark = true;
          send(outMedia(streamSid, e.delta));
          return;
        case 'speech_started':
          // Barge-in: the caller speaks over the assistant. Twilio drops what it has not played yet.
          if (responding || unplayedMarks > 0 || audioSinceMark) {
            send(outClear(streamSid));
            unplayedMarks = 0;
            audioSinceMark = false;
            if (responding) model?.cancelResponse();
            responding = false;
          }
          return;
        case 'response_created':
          responding = true;
          return;
        case 'response_done':
          responding = false;
          markPlayback();
          if (endAfterPlayback && unplayedMarks === 0) close(1000, 'call ended');
          return;
        case 'caller_transcript':
          if (e.text.trim()) later(() => plan!.heard(e.text.trim()));
          return;
        case 'assistant_transcript':
          if (e.text.trim()) later(() => plan!.said(e.text.trim()));
          return;
        case 'function_call': {
          let args: unknown = {};
          try {
            args = e.arguments ? JSON.parse(e.arguments) : {};
          } catch {
            args = null;
          }
          later(async () => {
            const answer = args === null ? { output: { error: 'The arguments were not JSON.' } } : await plan!.runTool(e.name, args);
            if (answer.endCall) {
              // The goodbye plays out (its mark comes back), then the stream closes; the `streamed` step hangs up.
              endAfterPlayback = true;
              goodbyeTimer = setTimeout(() => close(1000, 'call ended'), GOODBYE_MS);
              if (!responding && unplayedMarks === 0 && !audioSinceMark) close(1000, 'call ended');
              return;
            }
            model?.sendFunctionOutput(e.callId, answer.output);
          });
          return;
        }
        case 'error':
          logger.warn({ callId: call?.id, code: e.code, message: e.message }, 'voice: the realtime model reported an error');
          return;
        default:
          return;
      }
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
            return close(1008, 'unauthenticated');
          }
          clearTimeout(startTimer);
          call = admitted;
          streamSid = msg.streamSid;
          plan = await planCall(db, admitted);
          if (!plan) return close(1000, 'no conversation on this call');
          try {
            model = await openRealtimeSession(opts.realtime, plan.setup, onModel, (reason) => {
              if (!finished) {
                logger.warn({ callId: admitted.id, reason }, 'voice: the realtime session ended during a call');
                finish(reason);
                close(1011, 'model session ended');
              }
            });
            if (finished) model.close();
          } catch (err) {
            logger.warn({ err, callId: admitted.id }, 'voice: the realtime model could not be reached; the call goes on in turns');
            finish((err as Error).message);
            close(1011, 'model unavailable');
          }
        })().catch((err: unknown) => {
          logger.error({ err }, 'voice: a media stream could not start');
          finish('the stream could not start');
          close(1011, 'failed');
        });
        return;
      }
      if (!call || !model) return;
      if (msg.event === 'media') {
        if (msg.media.track && msg.media.track !== 'inbound') return;
        model.appendAudio(msg.media.payload);
        return;
      }
      if (msg.event === 'mark') {
        unplayedMarks = Math.max(0, unplayedMarks - 1);
        if (endAfterPlayback && unplayedMarks === 0 && !responding) close(1000, 'call ended');
        return;
      }
      if (msg.event === 'stop') {
        finish(null);
        close(1000, 'stream stopped');
      }
    });
    ws.on('close', () => finish(null));
    ws.on('error', () => finish(null));
  });
}
