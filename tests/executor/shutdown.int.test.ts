import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExecutor } from '@/server/executor/executor';
import { ingestEvents } from '@/server/executor/store';
import { useTestServer } from '../helpers/server';
import { ingressFor, mounts, runsOf, serveAndRegister, signingKey, testClient, until } from './harness';

/** SIGTERM's part in the executor: stop claiming, let steps in flight finish within a deadline, hand back the rest at once. */
const app = useTestServer({ mounts });
let ingress: Awaited<ReturnType<typeof ingressFor>>;
const executed: string[] = [];
let release: () => void = () => {};
let gate = new Promise<void>((r) => (release = r));

type Ctx = { step: { run: <T>(id: string, fn: () => Promise<T> | T) => Promise<T> }; event: { data: { tag: string } } };

beforeAll(async () => {
  ingress = await ingressFor(app());
  const client = testClient(ingress.url);
  const fn = client.createFunction({ id: 'held', retries: 0, triggers: [{ event: 's/held' }] } as never, (async ({ step, event }: Ctx) => {
    const t = event.data.tag;
    await step.run('one', () => executed.push(`${t}:one`));
    await step.run('two', async () => {
      await gate;
      executed.push(`${t}:two`);
    });
    await step.run('three', () => executed.push(`${t}:three`));
    return t;
  }) as never);
  await serveAndRegister(app(), client, [fn]);
});
afterAll(async () => {
  await ingress?.close();
});

/** Long leases: if a run were not handed back, the other executor could not take it for a minute. */
const executor = () =>
  startExecutor({ db: app().database.db, databaseUrl: app().database.pool.options.connectionString as string, signingKey, leaseMs: 60_000, workers: 2, idleMs: 60_000 });
const runOf = async (tag: string) => (await runsOf(app(), 'test-held')).find((r) => (r.event as { data: { tag: string } }).data.tag === tag);

describe('executor shutdown', () => {
  it('a step in flight past the deadline is handed back, and another executor takes the run over at once', async () => {
    const a = await executor();
    await ingestEvents(app().database.db, [{ name: 's/held', data: { tag: 'late' } }], new Date());
    await until(async () => executed.includes('late:one') && (await runOf('late'))?.stack.length === 1);
    const b = await executor();
    const t0 = Date.now();
    const { released } = await a.stop({ deadlineMs: 300 });
    const stopMs = Date.now() - t0;
    expect(released).toBe(1);
    expect(stopMs).toBeLessThan(2000);
    // Handed back: no longer A's (B may hold it already).
    expect((await runOf('late'))?.leaseOwner).not.toBe(a.owner);
    release();
    const done = await until(async () => {
      const r = await runOf('late');
      return r?.status === 'completed' ? r : null;
    }, 10_000);
    // Taken over without waiting out the first executor's minute-long lease.
    expect(Date.now() - t0).toBeLessThan(10_000);
    await b.stop();
    expect(done.output).toBe('late');
    expect(executed.filter((e) => e === 'late:one')).toHaveLength(1);
    expect(executed.filter((e) => e === 'late:three')).toHaveLength(1);
    // The first executor's own late checkpoint was refused: "two" is recorded once, by the executor that finished the run.
    const { rows } = await app().database.pool.query(`SELECT name FROM executor_step_log WHERE run_id = $1 AND op = 'StepRun' ORDER BY created_at`, [done.id]);
    expect(rows.map((r) => r.name)).toEqual(['one', 'two', 'three']);
  });

  it('a step that finishes within the deadline completes its run, and nothing new is claimed meanwhile', async () => {
    gate = new Promise<void>((r) => (release = r));
    const a = await executor();
    await ingestEvents(app().database.db, [{ name: 's/held', data: { tag: 'prompt' } }], new Date());
    await until(async () => executed.includes('prompt:one'));
    const stopping = a.stop({ deadlineMs: 10_000 });
    // Sent after stop began: it must wait for another executor.
    await ingestEvents(app().database.db, [{ name: 's/held', data: { tag: 'after' } }], new Date());
    setTimeout(release, 200);
    const { released } = await stopping;
    expect(released).toBe(0);
    const done = await runOf('prompt');
    expect(done?.status).toBe('completed');
    expect(executed.filter((e) => e.startsWith('prompt:'))).toEqual(['prompt:one', 'prompt:two', 'prompt:three']);
    expect((await runOf('after'))?.status).toBe('queued');
    expect(executed.some((e) => e.startsWith('after:'))).toBe(false);
  });
});
