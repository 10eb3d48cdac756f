/**
 * The SMS figures of `npm run bench` (issue 32, Performance), returned as `smsToModelMs` and
 * `smsWebhookP99Ms` (the channels keys). Steward's production server (npm start, API only, built-in
 * executor) with Twilio pointed at the loopback stand-in here (tests/helpers/twilio-fake.ts, which
 * signs its webhooks as Twilio does) and the scripted model here:
 *
 * - `smsToModelMs`: the owner's signed inbound webhook sent (the stand-in starts the POST) → the
 *   first request of the chat turn arriving at the scripted model. Texts go one at a time, each
 *   after the previous answer came back as a text, after warm-up texts.
 * - `smsWebhookP99Ms`: 50 concurrent senders (strangers' numbers, the assistant keeping their
 *   texts without answering), each texting as a person does: a text, Steward's answer, a pause of
 *   0.5 to 1.5 s, the next (about 50 texts a second in all), for BENCH_SMS_LOAD_SECONDS (20): the
 *   time to Steward's answer, p50/p99 over every request, and how many were not 200.
 * - `smsWebhookSaturation`: the same 50 senders posting back to back with no pause, for 10 s: what
 *   the machine sustains (texts a second) and the answer times then (a closed loop: the latency is
 *   the senders divided by the throughput).
 *
 * BENCH_SMS_TRACE=<file> appends each measured request as `[start epoch ms, ms]`, one JSON line
 * each (the paced requests first): where in time a tail falls (issue 40 found the minute mark so).
 */
import { appendFileSync } from 'node:fs';
import { assistants } from '../db/schema';
import { eq } from 'drizzle-orm';
import { type ModelRequest } from '../tests/helpers/scripted-model';
import { type TwilioFake } from '../tests/helpers/twilio-fake';
import { sleep, spread } from './processes';
import { startTwilioWorld } from './twilio-world';

const TEXTS = Number(process.env.BENCH_SMS_TEXTS ?? 30);
const WARMUP = 3;
const SENDERS = Number(process.env.BENCH_SMS_SENDERS ?? 50);
const LOAD_SECONDS = Number(process.env.BENCH_SMS_LOAD_SECONDS ?? 20);
const SATURATION_SECONDS = 10;
const OWNER_PHONE = '+14155550100';
const LINE = '+14155550199';

export async function bench() {
  const arrivals: number[] = [];
  const { twilio, base, user, database, close } = await startTwilioWorld({
    name: 'sms',
    model: {
      fallback: (_r: ModelRequest) => {
        arrivals.push(performance.now());
        return { text: 'Noted, thank you.' };
      },
    },
    ownerPhone: OWNER_PHONE,
    line: LINE,
    channel: 'sms',
  });
  try {
    await database.db.update(assistants).set({ talkToStrangers: false }).where(eq(assistants.id, user.assistantId));
    twilio.state.smsUrl = `${base}/api/channels/twilio/messages`;

    const toModel: number[] = [];
    for (let i = 0; i < WARMUP + TEXTS; i++) {
      const [seenArrivals, seenReplies] = [arrivals.length, twilio.sentTo(OWNER_PHONE).length];
      const sent = performance.now();
      const answer = await twilio.inbound({ from: OWNER_PHONE, to: LINE, body: `Please note item ${i}.` });
      if (answer.status !== 200) throw new Error(`text ${i} answered ${answer.status}: ${answer.text}`);
      const deadline = Date.now() + 30_000;
      while ((arrivals.length === seenArrivals || twilio.sentTo(OWNER_PHONE).length === seenReplies) && Date.now() < deadline) await sleep(1);
      if (arrivals.length === seenArrivals || twilio.sentTo(OWNER_PHONE).length === seenReplies) throw new Error(`text ${i} was not answered within 30 s`);
      if (i >= WARMUP) toModel.push(arrivals[seenArrivals]! - sent);
    }

    const paced = await senders(twilio, { seconds: LOAD_SECONDS, pause: () => 500 + Math.random() * 1000, prefix: '+1212555' });
    const saturated = await senders(twilio, { seconds: SATURATION_SECONDS, pause: () => 0, prefix: '+1332555' });
    return {
      smsToModelMs: { ...spread(toModel), target: { p50: 100 } },
      smsWebhookP99Ms: { ...paced, senders: SENDERS, seconds: LOAD_SECONDS, target: { p99: 200 } },
      smsWebhookSaturation: { ...saturated, senders: SENDERS, seconds: SATURATION_SECONDS },
    };
  } finally {
    await close();
  }
}

/**
 * SENDERS people texting the line at once, each waiting for Steward's answer and then `pause()` ms.
 * Each first sends one text unmeasured (its chat is made then) and pauses, the starts spread over
 * the first pause as people's are, so the figures are the steady state rather than 50 first texts
 * at one instant.
 */
async function senders(twilio: TwilioFake, o: { seconds: number; pause: () => number; prefix: string }) {
  const latencies: number[] = [];
  const trace: Array<[number, number]> = [];
  let non200 = 0;
  const started = performance.now();
  const end = Date.now() + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, s) => {
      const from = `${o.prefix}${String(1000 + s).padStart(4, '0')}`;
      await sleep(o.pause());
      await twilio.inbound({ from, to: LINE, body: `Hello from sender ${s}` });
      // Then the pause a person takes, as after every text: without it each sender's first measured
      // text followed its first at once, doubling the rate while the 50 chats were being made, and
      // those ramp texts alone set the p99 (issue 40).
      const first = o.pause();
      if (first) await sleep(first);
      for (let n = 0; Date.now() < end; n++) {
        const t0 = performance.now();
        const wall = Date.now();
        const r = await twilio.inbound({ from, to: LINE, body: `Hello ${n} from sender ${s}` });
        latencies.push(performance.now() - t0);
        if (process.env.BENCH_SMS_TRACE) trace.push([wall, performance.now() - t0]);
        if (r.status !== 200) non200++;
        const wait = o.pause();
        if (wait) await sleep(wait);
      }
    }),
  );
  const s = spread(latencies);
  if (process.env.BENCH_SMS_TRACE) appendFileSync(process.env.BENCH_SMS_TRACE, trace.map((t) => JSON.stringify(t)).join('\n') + '\n');
  return { p50: s.p50, p90: s.p90, p99: s.p99, n: s.n, non200, textsPerSecond: Math.round((s.n / (performance.now() - started)) * 1000) };
}
