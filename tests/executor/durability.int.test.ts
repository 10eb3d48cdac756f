import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server';
import { executorFor, ingressFor, mounts, runsOf, serveAndRegister, signingKey, testClient, testClock, until } from './harness';

const app = useTestServer({ mounts });
const executed: string[] = [];
let gate: () => void = () => {};
let gateOpen = new Promise<void>((r) => (gate = r));
const active: Record<string, number> = {};
const peak: Record<string, number> = {};
let keysAtOnce = 0;
let ingress: Awaited<ReturnType<typeof ingressFor>>;
let client: ReturnType<typeof testClient>;

type Ctx = { step: { run: <T>(id: string, fn: () => Promise<T> | T) => Promise<T>; sleep: (id: string, d: string) => Promise<void> }; event: { data: Record<string, string> } };

beforeAll(async () => {
  ingress = await ingressFor(app());
  client = testClient(ingress.url);
  const fn = (cfg: object, h: (c: Ctx) => Promise<unknown>) => client.createFunction(cfg as never, h as never);
  await serveAndRegister(app(), client, [
    fn({ id: 'napper', triggers: [{ event: 'd/nap' }] }, async ({ step }) => {
      await step.run('before', () => executed.push('before'));
      await step.sleep('long', '1h');
      await step.run('after', () => executed.push('after'));
      return 'rested';
    }),
    fn({ id: 'three', triggers: [{ event: 'd/three' }] }, async ({ step, event }) => {
      for (const s of ['s1', 's2', 's3']) await step.run(s, () => executed.push(`${event.data.i}:${s}`));
      return event.data.i;
    }),
    fn({ id: 'gated', triggers: [{ event: 'd/gated' }] }, async ({ step }) => {
      await step.run('one', () => executed.push('one'));
      await step.run('two', async () => {
        await gateOpen;
        executed.push('two');
      });
      return 'done';
    }),
    fn({ id: 'serial', concurrency: { limit: 1, key: 'event.data.k' }, triggers: [{ event: 'd/serial' }] }, async ({ step, event }) =>
      step.run('hold', async () => {
        const k = event.data.k;
        active[k] = (active[k] ?? 0) + 1;
        peak[k] = Math.max(peak[k] ?? 0, active[k]);
        keysAtOnce = Math.max(keysAtOnce, Object.values(active).filter((n) => n > 0).length);
        await new Promise((r) => setTimeout(r, 150));
        active[k]--;
      }),
    ),
  ]);
});
afterAll(async () => {
  await ingress?.close();
});

const done = (functionId: string, n: number) =>
  until(async () => {
    const runs = await runsOf(app(), functionId);
    return runs.filter((r) => r.status === 'completed').length >= n ? runs : null;
  }, 30_000);

describe('executor durability', () => {
  it('a sleep survives an executor restart, and finished steps do not run again', async () => {
    const clock = testClock();
    const first = await executorFor(app(), clock);
    await client.send({ name: 'd/nap', data: {} } as never);
    await until(async () => (await runsOf(app(), 'test-napper'))[0]?.status === 'sleeping');
    await first.stop();
    const second = await executorFor(app(), clock);
    clock.advance(3_600_000 + 1000);
    second.poke();
    const [run] = await done('test-napper', 1);
    await second.stop();
    expect(run.output).toBe('rested');
    expect(executed.filter((e) => e === 'before')).toHaveLength(1);
    expect(executed.filter((e) => e === 'after')).toHaveLength(1);
  });

  it('two executors on one database never run the same step twice', async () => {
    const clock = testClock();
    const [a, b] = [await executorFor(app(), clock), await executorFor(app(), clock)];
    await client.send(Array.from({ length: 20 }, (_, i) => ({ name: 'd/three', data: { i: String(i) } })) as never);
    await done('test-three', 20);
    await Promise.all([a.stop(), b.stop()]);
    for (let i = 0; i < 20; i++) for (const s of ['s1', 's2', 's3']) expect(executed.filter((e) => e === `${i}:${s}`)).toHaveLength(1);
  });

  it('a concurrency key lets one run at a time per key, and runs of different keys run side by side', async () => {
    const clock = testClock();
    const ex = await executorFor(app(), clock);
    await client.send(['x', 'x', 'x', 'y'].map((k) => ({ name: 'd/serial', data: { k } })) as never);
    await done('test-serial', 4);
    await ex.stop();
    expect(peak.x).toBe(1);
    expect(peak.y).toBe(1);
    expect(keysAtOnce).toBe(2);
  });

  it('after kill -9 of the executor process mid-run, another resumes when the lease ends without re-running finished steps', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'child-executor.ts')], {
      env: { ...process.env, DATABASE_URL: app().database.pool.options.connectionString as string, SIGNING_KEY: signingKey, LEASE_MS: '1500' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => child.stdout!.on('data', (d) => String(d).includes('ready') && resolve()));
    await client.send({ name: 'd/gated', data: {} } as never);
    // Kill only once step 'one' is stored: a step still in flight may run again (at-least-once), a stored one never.
    await until(async () => {
      const [run] = await runsOf(app(), 'test-gated');
      return run?.status === 'running' && Object.keys(run.steps).length === 1;
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    gate();
    const clock = testClock();
    const survivor = await executorFor(app(), clock);
    const [run] = await done('test-gated', 1);
    await survivor.stop();
    expect(run.output).toBe('done');
    expect(executed.filter((e) => e === 'one')).toHaveLength(1);
    gateOpen = Promise.resolve();
  });
});
