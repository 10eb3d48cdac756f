/**
 * The voice figure of `npm run bench` (issue 35, Performance), returned as `turnOverheadMs` (key
 * `voice.turnOverheadMs`): Steward's production server (npm start, API only, built-in executor)
 * with Twilio pointed at the loopback stand-in (tests/helpers/twilio-fake.ts, which signs its
 * webhooks as Twilio does) and the scripted model here, answering after MODEL_DELAY_MS.
 *
 * One sample: the owner's signed speech-result webhook (POST /api/channels/twilio/voice/speech)
 * sent → its TwiML answer, holding the model's reply, received. The chat turn in between runs on
 * the durable engine. Side by side, alternating with it in the same run, the baseline: the same
 * kind of request (streamed Chat Completions) sent straight to the scripted model, which is the
 * model's own time. `turnOverheadMs` is the webhook's time less the model's: p50 of the webhook
 * minus p50 of the baseline (target p50 ≤ 150 ms), with both spreads shown.
 *
 * Live calls (issue 48) are measured after, on a server with a realtime model configured:
 * `realtimeOverheadMs` and `bargeInMs` (bench/voice-realtime.ts).
 */
import { randomBytes } from 'node:crypto';
import { parseTwiml } from '../tests/helpers/twiml-parse';
import { sleep, spread } from './processes';
import { BENCH_MODEL as MODEL, startTwilioWorld } from './twilio-world';
import { benchRealtime } from './voice-realtime';

const EXCHANGES = Number(process.env.BENCH_VOICE_EXCHANGES ?? 40);
const PER_CALL = 10;
const WARMUP = 4;
const MODEL_DELAY_MS = 20;
const OWNER_PHONE = '+14155550300';
const LINE = '+14155550399';
const REPLY = 'Noted, I will remind you tomorrow morning.';

export async function bench() {
  return { ...(await benchTurns()), ...(await benchRealtime()) };
}

/** Turn-based calls (no realtime model configured). */
async function benchTurns() {
  const { twilio, base, llm, close } = await startTwilioWorld({
    name: 'voice',
    model: { fallback: () => ({ text: REPLY, delayMs: MODEL_DELAY_MS }) },
    ownerPhone: OWNER_PHONE,
    line: LINE,
    channel: 'voice',
  });
  try {
    /** A new call: its first TwiML names the speech step's URL (with the call's id). */
    const newCall = async () => {
      const callSid = `CA${randomBytes(16).toString('hex')}`;
      const params = { AccountSid: twilio.accountSid, ApiVersion: '2010-04-01', CallSid: callSid, CallStatus: 'in-progress', Direction: 'inbound', From: OWNER_PHONE, To: LINE, StirVerstat: 'TN-Validation-Passed-A' };
      const first = await twilio.post(`${base}/api/channels/twilio/voice`, { ...params, CallStatus: 'ringing' });
      const gather = parseTwiml(first.text).find((v) => v.verb === 'Gather');
      if (first.status !== 200 || !gather || gather.verb !== 'Gather') throw new Error(`the call was not answered: ${first.status} ${first.text}`);
      return { params, speechUrl: new URL(gather.action) };
    };

    /** The baseline: a streamed Chat Completions request straight to the scripted model. */
    const modelAlone = async () => {
      const t0 = performance.now();
      const res = await fetch(`${llm.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: 'Remind me tomorrow morning.' }] }),
      });
      await res.text();
      return performance.now() - t0;
    };

    const webhook: number[] = [];
    const baseline: number[] = [];
    let call = await newCall();
    for (let i = 0, n = 1; i < WARMUP + EXCHANGES; i++, n++) {
      if (n > PER_CALL) {
        call = await newCall();
        n = 1;
      }
      const url = new URL(call.speechUrl);
      url.searchParams.set('n', String(n));
      const t0 = performance.now();
      const answer = await twilio.post(url.toString(), { ...call.params, SpeechResult: `Remind me about item ${i} tomorrow morning.`, Confidence: '0.94' });
      const took = performance.now() - t0;
      const spoke = parseTwiml(answer.text).some((v) => v.verb === 'Gather' && v.say.includes(REPLY));
      if (answer.status !== 200 || !spoke) throw new Error(`exchange ${i} was not answered with the reply: ${answer.status} ${answer.text}`);
      const alone = await modelAlone();
      if (i >= WARMUP) {
        webhook.push(took);
        baseline.push(alone);
      }
    }
    const w = spread(webhook);
    const b = spread(baseline);
    return {
      turnOverheadMs: {
        p50: Number((w.p50 - b.p50).toFixed(1)),
        p90: Number((w.p90 - b.p90).toFixed(1)),
        webhookToTwimlMs: w,
        modelAloneMs: b,
        modelDelayMs: MODEL_DELAY_MS,
        exchanges: EXCHANGES,
        target: { p50: 150 },
      },
    };
  } finally {
    await close();
  }
}
