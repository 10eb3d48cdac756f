import { spawn } from 'node:child_process';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { idempotencyKeys } from '@/db/schema';
import { LEASE_MS } from '@/server/http/idempotency';
import { call, newAccount, newUser, userKey, type Call } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * The Idempotency-Key's hold on a request follows the process answering it (spec 5, issue 47): a
 * live request is never taken over however long it runs (its process renews the hold), and a
 * request whose process died is taken over by a retry once the hold lapses (LEASE_MS), not after
 * minutes. Requests are held for real: a test transaction locks the memories table, so a POST
 * /memories waits on its insert until the lock is let go.
 */
const app = useTestServer();
let seq = 0;
const freshKey = () => `lease-${Date.now().toString(36)}-${seq++}`;
const withKey = (k: string, opts: Call = {}): Call => ({ ...opts, headers: { ...(opts.headers ?? {}), 'Idempotency-Key': k } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function person() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  return { key: await userKey(app(), acct, u.id) };
}

/** Holds every insert into memories until `free()`. */
async function lockMemories() {
  const c = new pg.Client({ connectionString: app().database.pool.options.connectionString as string });
  await c.connect();
  await c.query('BEGIN');
  await c.query('LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE');
  return {
    free: async () => {
      await c.query('COMMIT');
      await c.end();
    },
  };
}

const rowOf = async (k: string) => (await app().database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, k)))[0];

async function until<T>(f: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(50);
  }
}

describe('the hold on an Idempotency-Key', () => {
  it('a live request running past the lease is never taken over: its retry waits and gets 409, then the one answer', async () => {
    const { key } = await person();
    const k = freshKey();
    const body = { content: 'a long one' };
    const lock = await lockMemories();
    const first = call(app(), '/memories', withKey(k, { key, body }));
    const claimed = await until(async () => (await rowOf(k))?.state === 'running' && (await rowOf(k)));
    // Well past the lease the first claim took: the process renewed it.
    await sleep(LEASE_MS + 1_500);
    const held = await rowOf(k);
    expect(held.state).toBe('running');
    expect(held.lockedUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(held.lockedUntil!.getTime()).toBeGreaterThan(claimed.lockedUntil!.getTime());
    const retry = await call(app(), '/memories', withKey(k, { key, body }));
    expect(retry.status).toBe(409);
    expect(retry.body.error_code).toBe('idempotency_key_in_use');
    await lock.free();
    const answered = await first;
    expect(answered.status).toBe(201);
    const again = await call(app(), '/memories', withKey(k, { key, body }));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.memory.id).toBe(answered.body.memory.id);
    const mine = (await call(app(), '/memories', { key })).body.memories as Array<{ content: string }>;
    expect(mine.filter((m) => m.content === 'a long one')).toHaveLength(1);
  }, 40_000);

  it('a request held by a process that was killed is taken over by a retry on another process once its lease lapses', async () => {
    const { key } = await person();
    const k = freshKey();
    const body = { content: 'survives a kill' };
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'child-server.ts')], {
      env: { ...process.env, DATABASE_URL: app().database.pool.options.connectionString as string },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<number>((resolve) => child.stdout!.on('data', (d) => {
      const m = /port (\d+)/.exec(String(d));
      if (m) resolve(Number(m[1]));
    }));
    const other = { ...app(), baseUrl: `http://127.0.0.1:${port}/api` };
    const lock = await lockMemories();
    void call(other, '/memories', withKey(k, { key, body })).catch(() => undefined);
    await until(async () => (await rowOf(k))?.state === 'running');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const killedAt = Date.now();
    // The machine is gone with its connections: the insert it was waiting on never happens.
    await app().database.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query ILIKE 'insert into "memories"%'`);
    await lock.free();

    // At once, the key is still held (the dead process's lease runs on): 409 after the retry's wait.
    const early = await call(app(), '/memories', withKey(k, { key, body }));
    expect(early.status).toBe(409);
    expect(early.body.error_code).toBe('idempotency_key_in_use');
    // Retried as a client would: once the lease lapsed, this process answers it.
    let answered = early;
    while (answered.status === 409 && Date.now() - killedAt < 4 * LEASE_MS) answered = await call(app(), '/memories', withKey(k, { key, body }));
    expect(answered.status).toBe(201);
    expect(answered.headers.get('idempotent-replayed')).toBeNull();
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 10_000);
    const again = await call(app(), '/memories', withKey(k, { key, body }));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.memory.id).toBe(answered.body.memory.id);
    const mine = (await call(app(), '/memories', { key })).body.memories as Array<{ content: string }>;
    expect(mine.filter((m) => m.content === 'survives a kill')).toHaveLength(1);
  }, 60_000);
});
