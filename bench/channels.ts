/**
 * The channels section of `npm run bench` (issue 28, Performance), under `channels` in
 * bench/results.json. Steward's production server (npm start, API only, built-in executor) with
 * its inbound SMTP listener on a free port, SMTP_URL pointing at a capture in this process, a
 * loopback DNS publishing SPF for the bench user's domain (so the owner's mail is proven), and the
 * scripted model here:
 *
 * - `emailToModelMs`: the owner's mail accepted by the listener (the 250 after DATA, read by the
 *   sending client here) → the first request of the chat turn arriving at the scripted model.
 * - `answerToMailMs`: the model's final answer (the instant the scripted model answers) → the reply
 *   accepted at the SMTP capture (its end of DATA).
 *
 * Mails are sent one at a time, each after the previous reply arrived, after warm-up mails.
 */
import { randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { startMailCapture } from '../server/mail/capture';
import { startMailDns } from '../tests/mail/loopback-dns';
import { startScriptedModel, type ModelRequest } from '../tests/helpers/scripted-model';
import { apiServerEnv, functionRegistered, sleep, spread, start, stop, waitReady } from './processes';
import { benchUser } from './tasks';

const MAILS = Number(process.env.BENCH_CHANNEL_MAILS ?? 30);
const WARMUP = 3;
const MODEL = 'bench-model';

export async function bench() {
  const pgServer = await startThrowawayDatabase('channels_bench');
  const database = connect(pgServer.url, { max: 2 });
  const dns = await startMailDns();
  dns.publish('example.com', 'v=spf1 ip4:127.0.0.1 -all');
  const arrivals: number[] = [];
  const answers: number[] = [];
  const replies: { at: number; subject: string }[] = [];
  const llm = await startScriptedModel({
    fallback: (_r: ModelRequest) => {
      arrivals.push(performance.now());
      answers.push(performance.now());
      return { text: 'Noted, thank you.' };
    },
  });
  const capture = await startMailCapture((m) => replies.push({ at: performance.now(), subject: m.subject }));
  const { apiKey: accountKey } = await createAccount(database.db, 'Channels bench');
  const smtpPort = await freePort();
  const env = {
    ...apiServerEnv(pgServer.url),
    STEWARD_MODEL_BASE_URL: llm.baseUrl,
    STEWARD_MODEL_MEDIUM: MODEL,
    STEWARD_INBOUND_SMTP_PORT: String(smtpPort),
    STEWARD_INBOUND_SMTP_HOST: '127.0.0.1',
    SMTP_URL: capture.url,
    DNS_SERVERS: dns.address,
  };
  const port = await freePort();
  const steward = start('scripts/start.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, pool: true });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/api/openapi.json`);
    await functionRegistered(database.pool, 'chat-turn');
    const user = await benchUser(base, accountKey);
    const { rows } = await database.pool.query(`SELECT email FROM assistants WHERE id = $1`, [user.assistantId]);
    const assistantEmail = rows[0].email as string;

    const toModel: number[] = [];
    const toMail: number[] = [];
    for (let i = 0; i < WARMUP + MAILS; i++) {
      const subject = `Bench ${i} ${randomBytes(3).toString('hex')}`;
      const [seenArrivals, seenReplies] = [arrivals.length, replies.length];
      await transport.sendMail({ from: user.email, to: assistantEmail, subject, text: 'Please note this.' });
      const accepted = performance.now();
      const deadline = Date.now() + 30_000;
      while ((arrivals.length === seenArrivals || !replies.slice(seenReplies).some((r) => r.subject === `Re: ${subject}`)) && Date.now() < deadline) await sleep(1);
      const reply = replies.slice(seenReplies).find((r) => r.subject === `Re: ${subject}`);
      if (arrivals.length === seenArrivals || !reply) throw new Error(`mail ${i} was not answered within 30 s`);
      if (i < WARMUP) continue;
      toModel.push(arrivals[seenArrivals]! - accepted);
      toMail.push(reply.at - answers[answers.length - 1]!);
    }
    return {
      emailToModelMs: { ...spread(toModel), target: { p50: 100 } },
      answerToMailMs: { ...spread(toMail), target: { p50: 100 } },
    };
  } finally {
    transport.close();
    await stop(steward);
    await capture.close();
    await llm.close();
    dns.close();
    await database.close();
    await pgServer.stop();
  }
}
