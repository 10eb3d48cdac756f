/**
 * The carts section of `npm run bench` (issue 15, Performance), written under `carts` in
 * bench/results.json. One throwaway PostgreSQL, Steward's production server (npm start's
 * scripts/start.ts, API only: STEWARD_PAGES=off, with its built-in executor), a real SMTP server
 * on loopback in this process (Steward's SMTP_URL), and, for the list, a bare node:http + pg
 * baseline (bench/carts-bare-server.ts), all measured in this same run:
 *
 * - `list`: GET /api/portal/carts (one user's 50 newest of 300 carts pending approval, two
 *   dispatches each, staged through the approvals area's own staging code) with a user key,
 *   autocannon on both servers for the same time; `ratio` = Steward ÷ bare req/s.
 * - `approveToSentMs`: POST /api/portal/carts/{id}/approve on a cart pending approval (one email,
 *   undoDelaySec 0) → the SMTP server has received the whole message. Both instants are read on
 *   this process's clock: the request is sent from here and the SMTP server runs here.
 *
 * Approvals are measured one at a time (each after the previous cart has fully executed), after
 * warm-up approvals that are not counted.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { connect, type Database } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { tasks } from '../db/schema';
import { createAccount } from '../server/accounts/service';
import { ownerActor } from '../server/agent/runtime/owner-actor';
import { stageDispatch, submitCart } from '../server/approvals/staging';
import { queueRun } from '../server/tasks/runs';
import { functionRegistered, sleep, spread, start, stop, waitReady, combine, load, type Load } from './processes';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const LISTED_CARTS = 300;
const RUNS = Number(process.env.BENCH_CART_RUNS ?? 40);
const WARMUP_RUNS = 3;

/** One API call to the Steward under test; anything but a 2xx stops the bench. */
async function api(base: string, p: string, key: string, opts: { method?: string; body?: unknown; as?: string } = {}) {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (opts.as) headers['X-User-Email'] = opts.as;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${base}/api${p}`, { method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const body = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${opts.method ?? 'GET'} ${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A provisioned, onboarded user with an assistant, a user-level key, and email as the user released at once on approval (undoDelaySec 0). */
async function benchUser(base: string, accountKey: string) {
  const email = 'cart-bench@example.com';
  const { user } = await api(base, '/users/provision', accountKey, { body: { email } });
  await api(base, '/profile', accountKey, { method: 'PATCH', as: email, body: { timezone: 'Europe/Paris' } });
  await api(base, `/users/${user.id}/preferences/scheduling`, accountKey, {
    method: 'PUT',
    as: email,
    body: { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } },
  });
  await api(base, '/onboarding/mark-onboarded', accountKey, { as: email, body: {} });
  const { assistant } = await api(base, `/users/${user.id}/assistants`, accountKey, { as: email, body: { name: 'Ada' } });
  const { apiKey } = await api(base, '/api-keys', accountKey, { body: { label: 'bench user key', userId: user.id } });
  await api(base, `/users/${user.id}/preferences/supervision/matrix`, apiKey.key, { method: 'PATCH', body: { matrix: { email_as_user: { mode: 'manual', undoDelaySec: 0 } } } });
  return { id: user.id as string, email, assistantId: assistant.id as string, key: apiKey.key as string };
}
type BenchUser = Awaited<ReturnType<typeof benchUser>>;

/** A real SMTP server on loopback: each message's arrival time (this process's clock) by subject. */
async function smtpCapture() {
  const arrived = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // A loopback test server: no reverse DNS of 127.0.0.1 for its greeting.
    disableReverseLookup: true,
    onData(stream, _session, done) {
      let head = '';
      stream.on('data', (c: Buffer) => {
        if (head.length < 8192) head += c.toString('utf8');
      });
      stream.on('end', () => {
        const subject = /^subject:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? '';
        arrived.set(subject, performance.now());
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, arrived, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * Carts pending approval staged by the approvals area's own code (the staging tools' path): one
 * task, one run whose open cart is filled and submitted again and again (email as the user is
 * manual, so each one waits for the person).
 */
async function stager(database: Database, base: string, user: BenchUser) {
  const { task: created } = await api(base, '/tasks', user.key, { body: { title: 'Write to the team', assistant: user.assistantId } });
  const [task] = await database.db.select().from(tasks).where(eq(tasks.id, created.id));
  const run = await database.db.transaction((tx) => queueRun(tx, task, 'process'));
  const actor = (await ownerActor(database.db, task, run.id))!;
  return async (subject: string, dispatches: number) =>
    database.db.transaction(async (tx) => {
      let cartId = '';
      for (let i = 0; i < dispatches; i++) {
        const to = i === 0 ? 'bob@partner.example' : `team${i}@partner.example`;
        cartId = (await stageDispatch(tx, actor, task, run.id, { type: 'email', platform: 'email', actionType: 'email_as_user', to: [to], subject, body: `Hello,\n${subject}.\nAda` })).cartId;
      }
      const outcome = await submitCart(tx, cartId);
      if (outcome.next !== 'wait') throw new Error(`a bench cart was not left pending approval: ${JSON.stringify(outcome)}`);
      return cartId;
    });
}

export async function bench() {
  const pgServer = await startThrowawayDatabase('carts_bench');
  const database = connect(pgServer.url, { max: 4 });
  const smtp = await smtpCapture();
  const { apiKey: accountKey } = await createAccount(database.db, 'Carts bench');
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
    SMTP_URL: smtp.url,
  };
  const stewardPort = await freePort();
  const steward = start('scripts/start.ts', { ...env, PORT: String(stewardPort), HOST: '127.0.0.1' });
  const bareP = await freePort();
  const bare = start('bench/carts-bare-server.ts', { ...env, PORT: String(bareP) });
  try {
    const base = `http://127.0.0.1:${stewardPort}`;
    await waitReady(`${base}/api/openapi.json`);
    await waitReady(`http://127.0.0.1:${bareP}/`);
    const user = await benchUser(base, accountKey);
    const stage = await stager(database, base, user);
    for (let i = 0; i < LISTED_CARTS; i++) await stage(`Listed ${i}`, 2);
    await database.pool.query('ANALYZE carts; ANALYZE cart_dispatches; ANALYZE cart_dispatch_versions');
    await functionRegistered(database.pool, 'cart-execute');

    const list = await benchList(base, `http://127.0.0.1:${bareP}`, user.key);
    const approveToSentMs = await benchApproveToSent(base, user, stage, smtp.arrived, database);
    return { pendingCartsOfUser: LISTED_CARTS, list, approveToSentMs };
  } finally {
    await stop(steward);
    await stop(bare);
    await smtp.close();
    await database.close();
    await pgServer.stop();
  }
}


async function benchList(base: string, bareBase: string, key: string) {
  const stewardUrl = `${base}/api/portal/carts`;
  const bareUrl = `${bareBase}/api/portal/carts`;
  // Both write the same carts as the same JSON; if Steward's cart shape changes, the baseline must follow.
  const [ours, theirs] = await Promise.all([stewardUrl, bareUrl].map((u) => fetch(u, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.text())));
  if ((JSON.parse(ours) as { carts?: unknown[] }).carts?.length !== 50 || ours !== theirs) {
    // Show where they part, not only how they begin: the carts are long and alike.
    let at = 0;
    while (at < ours.length && ours[at] === theirs[at]) at++;
    const around = (s: string) => s.slice(Math.max(0, at - 200), at + 300);
    throw new Error(`bench/carts-bare-server.ts no longer writes what GET /api/portal/carts does (from character ${at}):\n steward: …${around(ours)}\n bare:    …${around(theirs)}`);
  }
  for (const u of [bareUrl, stewardUrl]) await autocannon({ url: u, connections: 10, amount: 1000, headers: { Authorization: `Bearer ${key}` } });
  // Bare, Steward, Steward, bare, each for half the time: load that comes and goes falls on both alike.
  const half = DURATION / 2;
  const bareRounds: Load[] = [await load(bareUrl, key, half)];
  const stewardRounds: Load[] = [await load(stewardUrl, key, half), await load(stewardUrl, key, half)];
  bareRounds.push(await load(bareUrl, key, half));
  const [bareLoad, stewardLoad] = [combine(bareRounds), combine(stewardRounds)];
  return { ratio: Number((stewardLoad.reqPerSec / bareLoad.reqPerSec).toFixed(3)), target: 0.6, steward: stewardLoad, bare: bareLoad };
}

async function benchApproveToSent(base: string, user: BenchUser, stage: (subject: string, n: number) => Promise<string>, arrived: Map<string, number>, database: Database) {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
    const subject = `Approved ${i}`;
    const cartId = await stage(subject, 1);
    const { cart } = await api(base, `/portal/carts/${cartId}`, user.key);
    const sent = performance.now();
    await api(base, `/portal/carts/${cartId}/approve`, user.key, { body: { contentHash: cart.contentHash } });
    for (const until = Date.now() + 30_000; !arrived.has(subject); await sleep(1)) {
      if (Date.now() > until) throw new Error(`the approved cart ${cartId} never reached the SMTP server`);
    }
    if (i >= WARMUP_RUNS) samples.push(arrived.get(subject)! - sent);
    // The next approval starts once this cart's execution has fully ended.
    for (const until = Date.now() + 30_000; ; await sleep(2)) {
      const { rows } = await database.pool.query(`SELECT status FROM carts WHERE id = $1`, [cartId]);
      if (rows[0]?.status === 'executed') break;
      if (Date.now() > until || rows[0]?.status === 'failed') throw new Error(`the approved cart ${cartId} ended ${rows[0]?.status}`);
    }
  }
  return { ...spread(samples), target: { p50: 200 }, endPoint: 'the SMTP server received the whole message (POST approve sent → end of DATA)', undoDelaySec: 0 };
}

if (process.argv[1]?.endsWith('carts.ts')) {
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
