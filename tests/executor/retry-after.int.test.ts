import { afterAll, beforeAll, expect, it } from 'vitest';
import { RetryAfterError } from 'inngest';
import { listRuns, runDetail } from '@/server/executor/admin';
import type { Executor } from '@/server/executor/executor';
import { admin } from '../helpers/admin-cli';
import { useTestServer } from '../helpers/server';
import { executorFor, ingressFor, mounts, runsOf, serveAndRegister, testClient, testClock, until, type TestClock } from './harness';

const app = useTestServer({ mounts });
let clock: TestClock;
let executor: Executor;
let ingress: Awaited<ReturnType<typeof ingressFor>>;
let calls = 0;

beforeAll(async () => {
  clock = testClock();
  ingress = await ingressFor(app());
  const client = testClient(ingress.url);
  const fn = client.createFunction({ id: 'polite', retries: 2, triggers: [{ event: 'r/go' }] } as never, (async ({ step }: { step: { run: (id: string, f: () => unknown) => Promise<unknown> } }) =>
    step.run('call-api', () => {
      calls++;
      if (calls === 1) throw new RetryAfterError('rate limited upstream', '30s');
      return 'done';
    })) as never);
  await serveAndRegister(app(), client, [fn]);
  executor = await executorFor(app(), clock);
  await client.send({ name: 'r/go', data: {} } as never);
});
afterAll(async () => {
  await executor?.stop();
  await ingress?.close();
});

it('RetryAfterError schedules the retry at the time it asks for, then the run completes; admin shows runs and steps', async () => {
  const queued = await until(async () => (await runsOf(app(), 'test-polite')).find((r) => r.status === 'queued' && r.attempt === 1));
  const delay = queued.availableAt.getTime() - clock.now().getTime();
  expect(delay).toBeGreaterThan(25_000);
  expect(delay).toBeLessThanOrEqual(31_000);
  clock.advance(31_000);
  executor.poke();
  const done = await until(async () => (await runsOf(app(), 'test-polite')).find((r) => r.status === 'completed'));
  expect(done.output).toBe('done');
  expect(calls).toBe(2);

  const listed = await listRuns(app().database.db, { status: 'completed' });
  expect(listed.runs.map((r) => r.id)).toContain(done.id);
  const detail = await runDetail(app().database.db, done.id);
  expect(detail.steps.map((s) => [s.op, s.attempt])).toEqual([
    ['StepError', 0],
    ['StepRun', 1],
  ]);
  const cli = await admin(app().database.pool.options.connectionString as string, 'run', '--id', done.id);
  expect(cli.out.run.id).toBe(done.id);
  const bad = await admin(app().database.pool.options.connectionString as string, 'runs', '--status', 'weird');
  expect(bad.out).toMatchObject({ ok: false, status: 400 });
});
