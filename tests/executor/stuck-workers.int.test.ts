import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExecutor, type Executor } from '@/server/executor/executor';
import { ingestEvents } from '@/server/executor/store';
import { admin } from '../helpers/admin-cli';
import { useTestServer } from '../helpers/server';
import { ingressFor, mounts, runsOf, serveAndRegister, signingKey, testClient, until } from './harness';

/*
 * Time keeps moving (issue 49): steps that never return hold their workers, never the executor's
 * clock. With every worker but one stuck, sleeping runs still wake on time, on the one free worker;
 * with every worker stuck, a due run waits (its lateness is in /api/metrics) and is claimed the
 * moment a worker frees up.
 */
const app = useTestServer({ mounts });
const WORKERS = 4;
const TOKEN = 'metrics-token-stuck-workers';
let ingress: Awaited<ReturnType<typeof ingressFor>>;
let executor: Executor;
/** Each stuck step waits on its own gate; opening one frees its worker. */
const gates: Array<() => void> = [];
const woke: Record<string, number> = {};

type Step = { run: <T>(id: string, fn: () => T | Promise<T>) => Promise<T>; sleepUntil: (id: string, at: string) => Promise<void> };

beforeAll(async () => {
  process.env.STEWARD_METRICS_TOKEN = TOKEN;
  ingress = await ingressFor(app());
  const client = testClient(ingress.url);
  const stuck = client.createFunction({ id: 'stuck', retries: 0, triggers: [{ event: 's/stuck' }] } as never, (async ({ step }: { step: Step }) =>
    step.run('hang', () => new Promise<string>((resolve) => gates.push(() => resolve('released'))))) as never);
  const alarm = client.createFunction({ id: 'alarm', triggers: [{ event: 's/alarm' }] } as never, (async ({ step, event }: { step: Step; event: { data: { tag: string; at: string } } }) => {
    await step.sleepUntil('until', event.data.at);
    await step.run('woke', () => (woke[event.data.tag] = Date.now()));
    return event.data.tag;
  }) as never);
  await serveAndRegister(app(), client, [stuck, alarm]);
  // A long safety check: only the clock's own timer can wake the alarms in time.
  executor = await startExecutor({ db: app().database.db, databaseUrl: app().database.pool.options.connectionString as string, signingKey, workers: WORKERS, idleMs: 60_000 });
});
afterAll(async () => {
  for (const open of gates.splice(0)) open();
  await executor?.stop();
  await ingress?.close();
  delete process.env.STEWARD_METRICS_TOKEN;
});

const db = () => app().database.db;

async function stickWorkers(n: number) {
  const before = gates.length;
  await ingestEvents(db(), Array.from({ length: n }, () => ({ name: 's/stuck', data: {} })), new Date());
  await until(async () => gates.length === before + n);
}

async function metrics(): Promise<Record<string, number>> {
  const res = await fetch(`${app().baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const out: Record<string, number> = {};
  for (const line of (await res.text()).split('\n')) {
    const m = /^(steward_[a-z_]+)(?:\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

describe('the clock with stuck workers', () => {
  it('every worker but one stuck: alarms still fire within 2 s of their time', async () => {
    await stickWorkers(WORKERS - 1);
    const now = Date.now();
    const due = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`a${i}`, now + 2_000 + i * 150]));
    await ingestEvents(db(), Object.entries(due).map(([tag, at]) => ({ name: 's/alarm', data: { tag, at: new Date(at).toISOString() } })), new Date());
    await until(async () => (await runsOf(app(), 'test-alarm')).filter((r) => r.status === 'completed').length === 12, 20_000);
    for (const [tag, at] of Object.entries(due)) {
      expect(woke[tag], tag).toBeGreaterThanOrEqual(at);
      expect(woke[tag]! - at, tag).toBeLessThan(2_000);
    }
    // The stuck steps are still stuck: the alarms went round them.
    expect((await runsOf(app(), 'test-stuck')).filter((r) => r.status === 'running')).toHaveLength(WORKERS - 1);
    // An operator sees how long each has run, and its step.
    const listed = await admin(app().database.pool.options.connectionString as string, 'runs', '--status', 'running', '--function', 'test-stuck');
    expect(listed.code).toBe(0);
    expect(listed.out.runs).toHaveLength(WORKERS - 1);
    for (const r of listed.out.runs) {
      expect(r.runningForSeconds).toBeGreaterThanOrEqual(2);
      expect(r.stepRunningForSeconds).toBeGreaterThanOrEqual(2);
      expect(r.runningFor).toMatch(/^\d+s$|^\d+m \d+s$/);
    }
  }, 60_000);

  it('every worker stuck: a due run waits, its lateness and the oldest step are in /api/metrics, and the first worker to free up takes it', async () => {
    await stickWorkers(1);
    const at = Date.now() + 500;
    await ingestEvents(db(), [{ name: 's/alarm', data: { tag: 'late', at: new Date(at).toISOString() } }], new Date());
    // Past its time, unclaimed: no worker is free.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(woke.late).toBeUndefined();
    const m = await metrics();
    expect(m.steward_engine_oldest_due_lateness_seconds).toBeGreaterThan(1);
    expect(m.steward_engine_oldest_running_step_age_seconds).toBeGreaterThan(2);
    expect(m.steward_executor_saturated_total).toBeGreaterThanOrEqual(1);
    // One stuck step returns: its worker claims the waiting run at once.
    const freedAt = Date.now();
    gates.shift()!();
    await until(async () => woke.late, 10_000);
    expect(woke.late! - freedAt).toBeLessThan(1_500);
  }, 60_000);
});
