/**
 * What the sms and voice sections both start: a throwaway PostgreSQL, the scripted model, the
 * loopback Twilio (tests/helpers/twilio-fake.ts), and Steward's production server (npm start, API
 * only, built-in executor) pointed at both; then a bench user whose verified phone is `ownerPhone`
 * and whose assistant has the number `line` for `channels`. `close()` stops all of it.
 */
import { eq } from 'drizzle-orm';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { assistants, identifiers } from '../db/schema';
import { createAccount } from '../server/accounts/service';
import { assignPhoneLine } from '../server/channels/phone-lines';
import { startScriptedModel } from '../tests/helpers/scripted-model';
import { startTwilioFake } from '../tests/helpers/twilio-fake';
import { apiServerEnv, functionRegistered, start, stop, waitReady } from './processes';
import { benchUser } from './tasks';

export const BENCH_MODEL = 'bench-model';

export async function startTwilioWorld(opts: {
  name: string;
  model: Parameters<typeof startScriptedModel>[0];
  ownerPhone: string;
  line: string;
  channel: 'sms' | 'voice';
  /** More of the server's environment (the voice section's realtime model: STEWARD_REALTIME_*). */
  env?: Record<string, string>;
}) {
  const pgServer = await startThrowawayDatabase(`${opts.name}_bench`);
  const database = connect(pgServer.url, { max: 2 });
  const llm = await startScriptedModel(opts.model);
  const twilio = await startTwilioFake();
  const { apiKey: accountKey } = await createAccount(database.db, `${opts.name} bench`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const steward = start('scripts/start.ts', {
    ...apiServerEnv(pgServer.url),
    STEWARD_PUBLIC_URL: base,
    // Twilio posts from few addresses: the per-address limit of anonymous posts would throttle a busy deployment's webhooks.
    RATE_LIMIT_ANONYMOUS_WRITES_PER_MINUTE: '1000000000',
    STEWARD_INBOUND_SMTP_PORT: 'off',
    STEWARD_MODEL_BASE_URL: llm.baseUrl,
    STEWARD_MODEL_MEDIUM: BENCH_MODEL,
    ...twilio.env(),
    PORT: String(port),
    HOST: '127.0.0.1',
    ...opts.env,
  });
  const close = async () => {
    await stop(steward);
    await twilio.close();
    await llm.close();
    await database.close();
    await pgServer.stop();
  };
  try {
    await waitReady(`${base}/api/openapi.json`);
    await functionRegistered(database.pool, 'chat-turn');
    const user = await benchUser(base, accountKey);
    const [{ accountId }] = await database.db.select({ accountId: assistants.accountId }).from(assistants).where(eq(assistants.id, user.assistantId));
    await database.db.insert(identifiers).values({ accountId, userId: user.id, type: 'phone', value: opts.ownerPhone, verified: true });
    const asked = await fetch(`${base}/api/phone-line-requests`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${user.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ requestedChannels: { [opts.channel]: true } }),
    });
    const { request } = (await asked.json()) as { request: { id: string } };
    await assignPhoneLine(database.db, { requestId: request.id, number: opts.line, ...(opts.channel === 'voice' ? { channels: 'voice' } : {}) });
    return { database, llm, twilio, base, user, close };
  } catch (e) {
    await close();
    throw e;
  }
}
