/**
 * The live-call figures of the voice section (issue 48), returned by bench/voice.ts as
 * `realtimeOverheadMs` and `bargeInMs` (keys `voice.realtimeOverheadMs`, `voice.bargeInMs`):
 * Steward's production server (npm start, API only) with Twilio pointed at its loopback stand-in
 * and STEWARD_REALTIME_URL at the realtime stand-in (tests/helpers/realtime-fake.ts), whose model
 * waits MODEL_DELAY_MS before it speaks. A call is answered with <Connect><Stream>; the media
 * stand-in (tests/helpers/twilio-media-fake.ts) connects to the kernel's WebSocket as Twilio does
 * and speaks the fixture's words.
 *
 * - realtimeOverheadMs: the stand-in model's end-of-speech event (input_audio_buffer.speech_stopped
 *   sent) → the first audio frame of the reply received by the Twilio stand-in, less the model's
 *   own delay: the time Steward adds on both hops (target p50 ≤ 150 ms).
 * - bargeInMs: the caller's first loud frame sent while the assistant speaks → the `clear`
 *   received by the Twilio stand-in (target p50 ≤ 100 ms). It includes the stand-in model's own
 *   voice detection, which decides on the first loud frame it reads.
 */
import { randomBytes } from 'node:crypto';
import { startRealtimeFake } from '../tests/helpers/realtime-fake';
import { callerSpeech, connectMediaStream, streamOf } from '../tests/helpers/twilio-media-fake';
import { spread } from './processes';
import { startTwilioWorld } from './twilio-world';

const EXCHANGES = Number(process.env.BENCH_VOICE_EXCHANGES ?? 40);
const PER_CALL = 10;
const WARMUP = 3;
const MODEL_DELAY_MS = 20;
const OWNER_PHONE = '+14155550310';
const LINE = '+14155550398';
/** The caller's audio is sent faster than real time (the stand-in's VAD counts audio, not wall time): a sample takes less. */
const FRAME_PACE_MS = 2;

export async function benchRealtime() {
  const realtime = await startRealtimeFake();
  realtime.state.modelDelayMs = MODEL_DELAY_MS;
  const world = await startTwilioWorld({
    name: 'voicert',
    model: { fallback: () => ({ text: 'unused' }) },
    ownerPhone: OWNER_PHONE,
    line: LINE,
    channel: 'voice',
    env: realtime.env(),
  }).catch(async (e: unknown) => {
    await realtime.close();
    throw e;
  });
  const { twilio, base, close } = world;
  const speech = callerSpeech();
  try {
    const newCall = async () => {
      const callSid = `CA${randomBytes(16).toString('hex')}`;
      const params = { AccountSid: twilio.accountSid, ApiVersion: '2010-04-01', CallSid: callSid, CallStatus: 'ringing', Direction: 'inbound', From: OWNER_PHONE, To: LINE, StirVerstat: 'TN-Validation-Passed-A' };
      realtime.state.replies.push({ say: 'Hi, how can I help?', audioMs: 60 });
      const sessions = realtime.sessions.length;
      const answered = await twilio.post(`${base}/api/channels/twilio/voice`, params);
      const stream = streamOf(answered.text);
      if (answered.status !== 200 || !stream) throw new Error(`the call was not streamed: ${answered.status} ${answered.text}`);
      const media = await connectMediaStream({ url: stream.url, callSid, accountSid: twilio.accountSid, parameters: stream.parameters });
      const session = await realtime.until(() => realtime.sessions[sessions], 20_000);
      await realtime.until(() => session.responses[0]?.done, 20_000);
      return { media, session };
    };

    const overhead: number[] = [];
    const bargeIn: number[] = [];
    let call = await newCall();
    for (let i = 0, n = 0; i < WARMUP + EXCHANGES; i++, n++) {
      if (n >= PER_CALL) {
        await call.media.hangUp();
        call = await newCall();
        n = 0;
      }
      const { media, session } = call;
      // The caller asks; the model answers at length (after its own delay).
      realtime.state.replies.push({ say: 'Here is a long answer.', audioMs: 3_000 });
      const before = session.responses.length;
      const clearsBefore = media.clears.length;
      await media.sendAudio(speech, FRAME_PACE_MS);
      const answer = await realtime.until(() => session.responses[before], 10_000);
      const stoppedAt = answer.triggeredAt;
      const first = await media.until(() => media.received.find((r) => r.event === 'media' && r.at > stoppedAt), 10_000);
      // The caller talks over the answer: the clear is what the caller would notice.
      const { firstLoudAt } = await media.sendAudio(speech, FRAME_PACE_MS);
      const clear = await media.until(() => media.clears[clearsBefore], 10_000);
      await realtime.until(() => answer.done && session.responses[before + 1]?.done, 10_000);
      if (i >= WARMUP) {
        overhead.push(first.at - stoppedAt - MODEL_DELAY_MS);
        bargeIn.push(clear.at - firstLoudAt!);
      }
    }
    await call.media.hangUp();
    const o = spread(overhead);
    const b = spread(bargeIn);
    return {
      realtimeOverheadMs: { p50: o.p50, p90: o.p90, vadStopToFirstFrameLessModelMs: o, modelDelayMs: MODEL_DELAY_MS, exchanges: EXCHANGES, target: { p50: 150 } },
      bargeInMs: { p50: b.p50, p90: b.p90, speechStartToClearMs: b, exchanges: EXCHANGES, target: { p50: 100 } },
    };
  } finally {
    await close();
    await realtime.close();
  }
}
