import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExecutor } from '@/server/executor/executor';
import { useTestServer } from '../helpers/server';
import { ingressFor, mounts, runsOf, serveAndRegister, signingKey, testClient, until } from '../executor/harness';

/** A step that takes longer than the executor's lease is driven by one worker only: the lease is renewed while the app works on it. */
const app = useTestServer({ mounts });
let ingress: Awaited<ReturnType<typeof ingressFor>>;
let client: ReturnType<typeof testClient>;
let calls = 0;

beforeAll(async () => {
  ingress = await ingressFor(app());
  client = testClient(ingress.url);
  const slow = client.createFunction({ id: 'slow-step', retries: 0, triggers: [{ event: 'l/slow' }] } as never, (async ({ step }: { step: { run: (id: string, fn: () => unknown) => Promise<unknown> } }) =>
    step.run('slow', async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 2500));
      return 'done';
    })) as never);
  await serveAndRegister(app(), client, [slow]);
});
afterAll(async () => {
  await ingress?.close();
});

describe('executor lease', () => {
  it('a step longer than the lease is not driven a second time when the executor wakes meanwhile', async () => {
    const executor = await startExecutor({ db: app().database.db, databaseUrl: app().database.pool.options.connectionString as string, signingKey, leaseMs: 800, workers: 2, idleMs: 100 });
    await client.send({ name: 'l/slow', data: {} } as never);
    await until(async () => calls === 1);
    // Other work arrives while the step runs (any event NOTIFYs the executor); the lease would have lapsed by now.
    await new Promise((r) => setTimeout(r, 1200));
    executor.poke();
    const [run] = await until(async () => {
      const runs = await runsOf(app(), 'test-slow-step');
      return runs[0]?.status === 'completed' ? runs : null;
    });
    await executor.stop();
    expect(run.output).toBe('done');
    expect(calls).toBe(1);
  });
});
