/**
 * Bench section `idempotency` (BENCH_ONLY=idempotency): what Idempotency-Key costs a write.
 * `POST /api/memories` as a user, on npm start's server (API only), loaded alternately without a
 * key and with a fresh key per request (each one is claimed, answered and kept), for the same time
 * in rounds: `idempotency.overheadRatio` is req/s with keys ÷ req/s without (target ≥ 0.9), beside
 * both loads' req/s, p50 and p99. A replay is measured too (`replay`): the same key again and again,
 * answered from the kept row.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { combine, start, stop, waitReady, type Load } from './processes';
import { benchUser } from './tasks';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = 3;
const CONNECTIONS = 50;

async function posts(url: string, key: string, seconds: number, idempotencyKey: 'none' | 'fresh' | 'same'): Promise<Load> {
  const same = randomUUID();
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ content: 'Bench memory: the user likes tea' }),
    // A fresh key per request, as a client that keys every write does (the same one for the replay
    // round). The load without a key sets its headers per request the same way: the load generator
    // shares this machine, and its own work must cost both sides alike.
    setupClient: (client: Parameters<NonNullable<autocannon.Options['setupClient']>>[0]) => {
      const base = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
      const next = () => client.setHeaders(idempotencyKey === 'none' ? { ...base, 'X-Bench': randomUUID() } : { ...base, 'Idempotency-Key': idempotencyKey === 'same' ? same : randomUUID() });
      next();
      client.on('response', next);
    },
  });
  return { reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx };
}

export async function bench() {
  const pgServer = await startThrowawayDatabase('idempotency_bench');
  let server: ReturnType<typeof start> | null = null;
  try {
    const database = connect(pgServer.url, { max: 4 });
    const { apiKey: accountKey } = await createAccount(database.db, 'Idempotency bench');
    await database.close();
    const port = await freePort();
    server = start('scripts/start.ts', {
      DATABASE_URL: pgServer.url,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      STEWARD_PAGES: 'off',
      RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
      RATE_LIMIT_READS_PER_MINUTE: '1000000000',
    });
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/api/openapi.json`);
    const user = await benchUser(base, accountKey);
    const url = `${base}/api/memories`;
    await posts(url, user.key, 3, 'none');
    await posts(url, user.key, 3, 'fresh');
    const without: Load[] = [];
    const keyed: Load[] = [];
    // Alternating rounds, so a drift of the machine falls on both.
    for (let i = 0; i < ROUNDS; i++) {
      without.push(await posts(url, user.key, SECONDS / ROUNDS, 'none'));
      keyed.push(await posts(url, user.key, SECONDS / ROUNDS, 'fresh'));
    }
    const replay = await posts(url, user.key, Math.max(2, SECONDS / ROUNDS), 'same');
    const a = combine(without);
    const b = combine(keyed);
    return {
      overheadRatio: Number((b.reqPerSec / a.reqPerSec).toFixed(3)),
      withoutKey: a,
      withKey: b,
      replay: { ...replay, reqPerSec: Math.round(replay.reqPerSec) },
      target: { overheadRatio: 0.9 },
    };
  } finally {
    if (server) await stop(server);
    await pgServer.stop();
  }
}
