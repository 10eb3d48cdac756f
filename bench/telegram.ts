/**
 * The Telegram figure of `npm run bench` (issue 41, Performance), written under `channels` as
 * `telegramToModelMs`. Steward's production server (npm start, API only, built-in executor) with
 * STEWARD_TELEGRAM_API_URL pointed at the loopback Bot API here (tests/helpers/telegram-fake.ts,
 * which delivers updates with the bot's secret token as Telegram does) and the scripted model here.
 * The bench user's assistant gets its own bot through the API and the owner links their Telegram
 * account with the bot's deep link; then:
 *
 * - `telegramToModelMs`: the owner's update posted to the webhook (the stand-in starts the POST) →
 *   the first request of the chat turn arriving at the scripted model. Messages go one at a time,
 *   each after the previous answer came back through sendMessage, after warm-up messages.
 */
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { startScriptedModel, type ModelRequest } from '../tests/helpers/scripted-model';
import { startTelegramFake } from '../tests/helpers/telegram-fake';
import { apiServerEnv, functionRegistered, sleep, spread, start, stop, waitReady } from './processes';
import { benchUser } from './tasks';

const MESSAGES = Number(process.env.BENCH_TELEGRAM_MESSAGES ?? 30);
const WARMUP = 3;

async function api(base: string, path: string, key: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${base}/api${path}`, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  const body = (await res.json()) as Record<string, any>;
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

export async function bench() {
  const pgServer = await startThrowawayDatabase('telegram_bench');
  const database = connect(pgServer.url, { max: 2 });
  const arrivals: number[] = [];
  const llm = await startScriptedModel({
    fallback: (_r: ModelRequest) => {
      arrivals.push(performance.now());
      return { text: 'Noted, thank you.' };
    },
  });
  const tg = await startTelegramFake();
  const { apiKey: accountKey } = await createAccount(database.db, 'Telegram bench');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const steward = start('scripts/start.ts', {
    ...apiServerEnv(pgServer.url),
    STEWARD_MODEL_BASE_URL: llm.baseUrl,
    STEWARD_MODEL_MEDIUM: 'bench-model',
    STEWARD_TELEGRAM_API_URL: tg.apiUrl,
    STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32',
    STEWARD_PUBLIC_URL: base,
    PORT: String(port),
    HOST: '127.0.0.1',
  });
  try {
    await waitReady(`${base}/api/openapi.json`);
    await functionRegistered(database.pool, 'chat-turn');
    const user = await benchUser(base, accountKey);
    const bot = tg.createBot();
    await api(base, `/assistants/${user.assistantId}/telegram-bot`, user.key, { method: 'PUT', body: { token: bot.token } });
    const { linkUrl } = await api(base, `/assistants/${user.assistantId}/telegram-bot/link`, user.key, { body: {} });
    const owner = { id: 5_550_001, first_name: 'Bench' };
    await tg.deliver(bot.token, tg.message(owner, { text: `/start ${new URL(linkUrl).searchParams.get('start')}` }));
    const linkedBy = Date.now() + 10_000;
    while (!tg.sent.some((m) => m.text.startsWith('Linked')) && Date.now() < linkedBy) await sleep(5);
    if (!tg.sent.some((m) => m.text.startsWith('Linked'))) throw new Error('the owner could not link their Telegram account');

    const toModel: number[] = [];
    const answers = () => tg.sent.filter((m) => m.chatId === String(owner.id) && m.text === 'Noted, thank you.').length;
    for (let i = 0; i < WARMUP + MESSAGES; i++) {
      const [seenArrivals, seenAnswers] = [arrivals.length, answers()];
      const sent = performance.now();
      const answer = await tg.deliver(bot.token, tg.message(owner, { text: `Please note item ${i}.` }));
      if (answer.status !== 200) throw new Error(`message ${i} answered ${answer.status}: ${answer.text}`);
      const deadline = Date.now() + 30_000;
      while ((arrivals.length === seenArrivals || answers() === seenAnswers) && Date.now() < deadline) await sleep(1);
      if (arrivals.length === seenArrivals || answers() === seenAnswers) throw new Error(`message ${i} was not answered within 30 s`);
      if (i >= WARMUP) toModel.push(arrivals[seenArrivals]! - sent);
    }
    return { telegramToModelMs: { ...spread(toModel), target: { p50: 100 } } };
  } finally {
    await stop(steward);
    await tg.close();
    await llm.close();
    await database.close();
    await pgServer.stop();
  }
}
