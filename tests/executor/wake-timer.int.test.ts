import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExecutor } from '@/server/executor/executor';
import { ingestEvents } from '@/server/executor/store';
import { useTestServer } from '../helpers/server';
import { ingressFor, mounts, runsOf, serveAndRegister, signingKey, testClient, until } from './harness';

/**
 * Sleeping runs wake on the executor's timer for the next due run: no NOTIFY comes, and the
 * executor's safety check is a minute away, so only that timer can wake them in time.
 */
const app = useTestServer({ mounts });
let ingress: Awaited<ReturnType<typeof ingressFor>>;
const woke: Record<string, number> = {};

type Ctx = { step: { run: <T>(id: string, fn: () => T) => Promise<T>; sleepUntil: (id: string, d: string) => Promise<void> }; event: { data: { tag: string; at: string } } };

beforeAll(async () => {
  ingress = await ingressFor(app());
  const client = testClient(ingress.url);
  const fn = client.createFunction({ id: 'alarm', triggers: [{ event: 'w/alarm' }] } as never, (async ({ step, event }: Ctx) => {
    await step.sleepUntil('until', event.data.at);
    await step.run('woke', () => (woke[event.data.tag] = Date.now()));
    return event.data.tag;
  }) as never);
  await serveAndRegister(app(), client, [fn]);
});
afterAll(async () => {
  await ingress?.close();
});

describe('executor wake-up timer', () => {
  it('wakes sleeping runs when they fall due, the earliest first, without a poke', async () => {
    const executor = await startExecutor({ db: app().database.db, databaseUrl: app().database.pool.options.connectionString as string, signingKey, idleMs: 60_000 });
    const now = Date.now();
    const due = { soon: now + 1200, later: now + 2400 };
    await ingestEvents(
      app().database.db,
      Object.entries(due).map(([tag, at]) => ({ name: 'w/alarm', data: { tag, at: new Date(at).toISOString() } })),
      new Date(),
    );
    await until(async () => (await runsOf(app(), 'test-alarm')).filter((r) => r.status === 'sleeping').length === 2);
    const runs = await until(async () => {
      const rs = await runsOf(app(), 'test-alarm');
      return rs.every((r) => r.status === 'completed') ? rs : null;
    }, 10_000);
    await executor.stop();
    expect(runs).toHaveLength(2);
    for (const [tag, at] of Object.entries(due)) {
      expect(woke[tag]).toBeGreaterThanOrEqual(at);
      expect(woke[tag] - at).toBeLessThan(1000);
    }
  });
});
