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
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { assistants, identifiers } from '../db/schema';
import { createAccount } from '../server/accounts/service';
import { assignPhoneLine } from '../server/channels/phone-lines';
import { startScriptedModel } from '../tests/helpers/scripted-model';
import { parseTwiml, startTwilioFake } from '../tests/helpers/twilio-fake';
import { functionRegistered, sleep, spread, start, stop, waitReady } from './processes';
import { benchUser } from './tasks';

const EXCHANGES = Number(process.env.BENCH_VOICE_EXCHANGES ?? 40);
const PER_CALL = 10;
const WARMUP = 4;
const MODEL = 'bench-model';
const MODEL_DELAY_MS = 20;
const OWNER_PHONE = '+14155550300';
const LINE = '+14155550399';
const REPLY = 'Noted, I will remind you tomorrow morning.';

export async function bench() {
  const pgServer = await startThrowawayDatabase('voice_bench');
  const database = connect(pgServer.url, { max: 2 });
  const llm = await startScriptedModel({ fallback: () => ({ text: REPLY, delayMs: MODEL_DELAY_MS }) });
  const twilio = await startTwilioFake();
  const { apiKey: accountKey } = await createAccount(database.db, 'Voice bench');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: pgServer.url,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    STEWARD_PAGES: 'off',
    STEWARD_MASTER_KEY: randomBytes(32).toString('base64'),
    STEWARD_PUBLIC_URL: base,
    RATE_LIMIT_READS_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
    RATE_LIMIT_ANONYMOUS_WRITES_PER_MINUTE: '1000000000',
    STEWARD_INBOUND_SMTP_PORT: 'off',
    STEWARD_MODEL_BASE_URL: llm.baseUrl,
    STEWARD_MODEL_MEDIUM: MODEL,
    ...twilio.env(),
  };
  const steward = start('scripts/start.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  try {
    await waitReady(`${base}/api/openapi.json`);
    await functionRegistered(database.pool, 'chat-turn');
    const user = await benchUser(base, accountKey);
    const [{ accountId }] = await database.db.select({ accountId: assistants.accountId }).from(assistants).where(eq(assistants.id, user.assistantId));
    await database.db.insert(identifiers).values({ accountId, userId: user.id, type: 'phone', value: OWNER_PHONE, verified: true });
    const asked = await fetch(`${base}/api/phone-line-requests`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${user.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ requestedChannels: { voice: true } }),
    });
    const { request } = (await asked.json()) as { request: { id: string } };
    await assignPhoneLine(database.db, { requestId: request.id, number: LINE, channels: 'voice' });

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
    await stop(steward);
    await twilio.close();
    await llm.close();
    await database.close();
    await pgServer.stop();
  }
}
