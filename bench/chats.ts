/**
 * The chats section of `npm run bench` (issue 16, Performance), written under `chats` in
 * bench/results.json. One throwaway PostgreSQL; Steward's production server (scripts/start.ts,
 * API only, its built-in executor) against the scripted model; and a bare baseline in this
 * process (node:http + pg, no framework) measured in the same run:
 *
 * - `firstByteMs`: POST /api/chats/{chatId}/process → the first byte of the answer (the first SSE
 *   event carries the execution id). Baseline: a bare server that inserts the message and a turn
 *   row and writes one SSE event.
 * - `perTokenMs`: the scripted model streams TOKENS chunks at once; per token, how much longer the
 *   client takes from the first to the last `interim_message` through Steward (engine step,
 *   streamText, each event stored and numbered, tailed to the client) than reading the same chunks
 *   straight from the scripted model. The p50 over the runs.
 * - `concurrentStreams`: 500 clients hold GET .../runs/{executionId}/events open on turns whose
 *   model calls are held, with heartbeats every second; the server's RSS growth (VmRSS before and
 *   while they are all open) and the streams that failed or closed early.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { startScriptedModel, type ScriptedModel } from '../tests/helpers/scripted-model';
import { functionRegistered, sleep, spread, start, stop, waitReady } from './processes';

const RUNS = Number(process.env.BENCH_CHAT_RUNS ?? 40);
const WARMUP = 3;
const TOKENS = 200;
const STREAMS = Number(process.env.BENCH_CHAT_STREAMS ?? 500);
const HELD_TURNS = 10;
const MODEL = 'bench-chat-model';

async function api(base: string, p: string, key: string, opts: { method?: string; body?: unknown; as?: string } = {}) {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (opts.as) headers['X-User-Email'] = opts.as;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${base}/api${p}`, { method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const body = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${opts.method ?? 'GET'} ${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function benchUser(base: string, accountKey: string) {
  const email = 'bench-chat@example.com';
  const { user } = await api(base, '/users/provision', accountKey, { body: { email } });
  await api(base, '/profile', accountKey, { method: 'PATCH', as: email, body: { timezone: 'Europe/Paris' } });
  await api(base, `/users/${user.id}/preferences/scheduling`, accountKey, {
    method: 'PUT',
    as: email,
    body: { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } },
  });
  await api(base, '/onboarding/mark-onboarded', accountKey, { as: email, body: {} });
  const { assistant } = await api(base, `/users/${user.id}/assistants`, accountKey, { as: email, body: { name: 'Ada' } });
  const { apiKey } = await api(base, '/api-keys', accountKey, { body: { label: 'bench chat key', userId: user.id } });
  return { id: user.id as string, assistantId: assistant.id as string, key: apiKey.key as string };
}

type Timed = { firstByte: number; events: Array<{ at: number; event: string; data: any }>; end: number };

/** One streamed request: when its first byte came, and when each event did (ms since it was sent). */
function timedStream(url: string, key: string, body?: unknown): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const out: Timed = { firstByte: 0, events: [], end: 0 };
    let buffer = '';
    const req = http.request(url, { method: payload ? 'POST' : 'GET', headers: { Authorization: `Bearer ${key}`, ...(payload ? { 'Content-Type': 'application/json' } : {}) } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now() - sent;
        if (!out.firstByte) out.firstByte = at;
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) out.events.push({ at, event, data: JSON.parse(data) });
        }
      });
      res.on('end', () => {
        out.end = performance.now() - sent;
        resolve(out);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** The scripted model read directly: first chunk to last chunk of TOKENS chunks, as a client of the model sees it. */
async function directSpan(llm: ScriptedModel): Promise<number> {
  const res = await fetch(`${llm.baseUrl}/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'x' }] }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let first = 0;
  let last = 0;
  let seen = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (!block.includes('"content":"') || block.includes('"content":""')) continue;
      seen++;
      const now = performance.now();
      if (!first) first = now;
      last = now;
    }
  }
  if (seen !== TOKENS) throw new Error(`the scripted model streamed ${seen} chunks, not ${TOKENS}`);
  return last - first;
}

/** The baseline of firstByteMs: insert the message and the turn, write the first event. Nothing else. */
async function bareServer(url: string) {
  const db = connect(url, { max: 4 });
  await db.pool.query('CREATE TABLE IF NOT EXISTS bench_bare_rows (id text PRIMARY KEY, kind text NOT NULL, at timestamptz NOT NULL DEFAULT now())');
  const server = http.createServer(async (req, res) => {
    for await (const _ of req);
    const id = randomBytes(12).toString('hex');
    // The message and the turn with its first event, in one round trip, as a hand-written server would.
    await db.pool.query({ name: 'bare_turn', text: `INSERT INTO bench_bare_rows (id, kind) VALUES ($1, 'message'), ($1 || 't', 'turn'), ($1 || 'e', 'event')`, values: [id] });
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write(`id: 1\nevent: status_update\ndata: ${JSON.stringify({ state: 'queued', executionId: id })}\n\n`);
    setTimeout(() => res.end(), 5);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: async () => { server.close(); await db.close(); } };
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

export async function bench() {
  const pgServer = await startThrowawayDatabase('chats_bench');
  const database = connect(pgServer.url, { max: 4 });
  const llm = await startScriptedModel();
  const { apiKey: accountKey } = await createAccount(database.db, 'Chats bench');
  const env = {
    DATABASE_URL: pgServer.url,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    STEWARD_PAGES: 'off',
    STEWARD_HTTP: 'lean',
    STEWARD_MASTER_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_READS_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
    STEWARD_MODEL_BASE_URL: llm.baseUrl,
    STEWARD_MODEL_MEDIUM: MODEL,
    STEWARD_SSE_HEARTBEAT_MS: '1000',
  };
  const port = await freePort();
  const steward = start('scripts/start.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  const bare = await bareServer(pgServer.url);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/api/openapi.json`);
    await functionRegistered(database.pool, 'chat-turn');
    const user = await benchUser(base, accountKey);
    const text = 'tokenxx '.repeat(TOKENS);
    llm.setFallback({ text });

    const firstByte: number[] = [];
    const bareFirstByte: number[] = [];
    const overhead: number[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const { chat } = await api(base, '/chats', user.key, { body: { assistantId: user.assistantId } });
      const run = await timedStream(`${base}/api/chats/${chat.id}/process`, user.key, { message: { content: 'Stream please' } });
      const tokens = run.events.filter((e) => e.event === 'interim_message');
      if (tokens.length !== TOKENS || run.events.at(-1)?.event !== 'message') throw new Error(`a bench turn streamed ${tokens.length} tokens, ending ${run.events.at(-1)?.event}`);
      const direct = await directSpan(llm);
      const b = await timedStream(bare.url, user.key, { message: { content: 'Stream please' } });
      if (i < WARMUP) continue;
      firstByte.push(run.firstByte);
      bareFirstByte.push(b.firstByte);
      overhead.push((tokens.at(-1)!.at - tokens[0].at - direct) / TOKENS);
    }

    const concurrentStreams = await benchConcurrent(base, user, llm, steward.pid!);
    return {
      firstByteMs: { ...spread(firstByte), target: { p50: 30 }, bare: spread(bareFirstByte) },
      perTokenMs: { ...spread(overhead), target: { p50: 1 }, tokensPerTurn: TOKENS, baseline: 'the same chunks read straight from the scripted model' },
      concurrentStreams,
    };
  } finally {
    await stop(steward);
    await bare.close();
    await llm.close();
    await database.close();
    await pgServer.stop();
  }
}

async function benchConcurrent(base: string, user: { key: string; assistantId: string }, llm: ScriptedModel, pid: number) {
  const helds = Array.from({ length: HELD_TURNS }, () => llm.hold());
  llm.setFallback(null);
  llm.enqueue(...helds.map((h) => h.script));
  const turns: Array<{ chatId: string; executionId: string }> = [];
  for (let i = 0; i < HELD_TURNS; i++) {
    const { chat } = await api(base, '/chats', user.key, { body: { assistantId: user.assistantId } });
    // The opening stream stays open until the held call is released.
    void timedStream(`${base}/api/chats/${chat.id}/process`, user.key, { message: { content: 'Hold on' } }).catch(() => {});
    await helds[i].arrived;
    turns.push({ chatId: chat.id, executionId: '' });
  }
  // The execution ids, from each chat's usage (one row per turn).
  for (const t of turns) t.executionId = (await api(base, `/chats/${t.chatId}/usage`, user.key)).rows[0].runId;
  await sleep(2_000);
  const before = rssKb(pid);

  let errors = 0;
  let earlyEnds = 0;
  let heartbeats = 0;
  let open = 0;
  const requests: http.ClientRequest[] = [];
  const opened = Array.from({ length: STREAMS }, (_, i) => {
    const t = turns[i % turns.length];
    return new Promise<void>((resolve) => {
      const req = http.get(`${base}/api/chats/${t.chatId}/runs/${t.executionId}/events`, { headers: { Authorization: `Bearer ${user.key}`, 'Last-Event-ID': '3' } }, (res) => {
        if (res.statusCode !== 200) errors++;
        else open++;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (heartbeats += (chunk.match(/: heartbeat/g) ?? []).length));
        res.on('end', () => earlyEnds++);
        res.on('error', () => {});
        resolve();
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      requests.push(req);
    });
  });
  await Promise.all(opened);
  // Several heartbeat intervals with every stream open and idle.
  await sleep(5_000);
  const during = rssKb(pid);
  const stillOpen = open - earlyEnds;
  for (const r of requests) r.destroy();
  for (const h of helds) h.release({ text: 'released' });
  await sleep(500);
  return {
    streams: STREAMS,
    open: stillOpen,
    errors: errors + (STREAMS - stillOpen - errors),
    heartbeatsReceived: heartbeats,
    rssBeforeMb: Math.round(before / 1024),
    rssDuringMb: Math.round(during / 1024),
    rssGrowthMb: Math.round((during - before) / 1024),
    target: { rssGrowthMb: 150, errors: 0 },
  };
}

if (process.argv[1]?.endsWith('chats.ts')) {
  bench().then(
    (r) => {
      process.stdout.write(JSON.stringify(r, null, 2) + '\n');
      process.exit(0);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
