import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NonRetriableError } from 'inngest';
import type { Executor } from '@/server/executor/executor';
import { useTestServer } from '../helpers/server';
import { executorFor, ingressFor, mounts, runsOf, serveAndRegister, testClient, testClock, until, type TestClock } from './harness';

const app = useTestServer({ mounts });
const executed: string[] = [];
const failures: unknown[] = [];
let flakyCalls = 0;
let clock: TestClock;
let executor: Executor;
let client: ReturnType<typeof testClient>;
let ingress: Awaited<ReturnType<typeof ingressFor>>;

type Step = {
  run: <T>(id: string, fn: () => Promise<T> | T) => Promise<T>;
  sleep: (id: string, d: string) => Promise<void>;
  sleepUntil: (id: string, d: Date | string) => Promise<void>;
  waitForEvent: (id: string, o: object) => Promise<unknown>;
  invoke: (id: string, o: object) => Promise<unknown>;
  sendEvent: (id: string, e: object) => Promise<unknown>;
};
type Ctx = { step: Step; event: { data: Record<string, unknown> } };

function define() {
  const fn = (cfg: object, handler: (ctx: Ctx) => Promise<unknown>) => client.createFunction(cfg as never, handler as never);
  const child = fn({ id: 'child', triggers: [{ event: 'test/child' }] }, async ({ step, event }) => step.run('double', () => Number(event.data.x) * 2));
  return [
    fn({ id: 'steps', triggers: [{ event: 'test/steps', if: 'event.data.go == true' }] }, async ({ step, event }) => {
      const a = await step.run('a', () => {
        executed.push(`a:${event.data.tag}`);
        return 1;
      });
      await step.sleep('nap', '2s');
      const b = await step.run('b', () => {
        executed.push(`b:${event.data.tag}`);
        return a + 1;
      });
      await step.sendEvent('announce', { name: 'test/announced', data: { tag: event.data.tag } });
      return { b };
    }),
    fn({ id: 'waiter', triggers: [{ event: 'test/wait' }] }, async ({ step }) => ({
      got: await step.waitForEvent('reply', { event: 'test/reply', timeout: '1h', match: 'data.id' }),
    })),
    fn({ id: 'flaky', retries: 3, triggers: [{ event: 'test/flaky' }] }, async ({ step }) =>
      step.run('sometimes', () => {
        flakyCalls++;
        if (flakyCalls < 3) throw new Error(`fail ${flakyCalls}`);
        return 'ok';
      }),
    ),
    fn(
      {
        id: 'doomed',
        retries: 1,
        triggers: [{ event: 'test/doomed' }],
        onFailure: async ({ event }: { event: { data: unknown } }) => {
          failures.push(event.data);
        },
      },
      async ({ step }) =>
        step.run('always', () => {
          throw new Error('broken');
        }),
    ),
    fn({ id: 'hopeless', retries: 3, triggers: [{ event: 'test/hopeless' }] }, async ({ step }) =>
      step.run('refuse', () => {
        executed.push('refuse');
        throw new NonRetriableError('no point');
      }),
    ),
    fn({ id: 'fanout', triggers: [{ event: 'test/fanout' }] }, async ({ step }) => {
      const parts = await Promise.all([1, 2, 3].map((n) => step.run(`part-${n}`, () => n * 10)));
      return parts.reduce((s, n) => s + n, 0);
    }),
    fn({ id: 'parent', triggers: [{ event: 'test/parent' }] }, async ({ step }) => ({ child: await step.invoke('call-child', { function: child, data: { x: 21 } }) })),
    child,
    fn({ id: 'ticker', triggers: [{ cron: '* * * * *' }] }, async ({ step }) => step.run('tick', () => executed.push('tick'))),
    fn({ id: 'cancellable', cancelOn: [{ event: 'test/cancel', if: 'async.data.id == event.data.id' }], triggers: [{ event: 'test/long' }] }, async ({ step }) => {
      await step.sleep('long-nap', '1h');
      executed.push('should-not-happen');
    }),
    fn({ id: 'until', triggers: [{ event: 'test/until' }] }, async ({ step }) => {
      await step.sleepUntil('later', new Date(clock.now().getTime() + 60_000));
      return 'woke';
    }),
  ];
}

async function send(name: string, data: object) {
  await client.send({ name, data } as never);
}

beforeAll(async () => {
  clock = testClock();
  ingress = await ingressFor(app());
  client = testClient(ingress.url);
  await serveAndRegister(app(), client, define());
  executor = await executorFor(app(), clock);
});
afterAll(async () => {
  await executor?.stop();
  await ingress?.close();
});

const finished = async (functionId: string, n = 1) =>
  until(async () => {
    const runs = await runsOf(app(), functionId);
    const done = runs.filter((r) => ['completed', 'failed', 'cancelled'].includes(r.status));
    return done.length >= n ? done : null;
  });

describe('built-in executor', () => {
  it('runs steps, sleeps until the clock passes the wake time, filters triggers with CEL, and sends events', async () => {
    await send('test/steps', { go: false, tag: 'skipped' });
    await send('test/steps', { go: true, tag: 's1' });
    const sleeping = await until(async () => (await runsOf(app(), 'test-steps')).find((r) => r.status === 'sleeping'));
    expect(executed).toContain('a:s1');
    expect(executed).not.toContain('b:s1');
    clock.advance(2500);
    executor.poke();
    const [run] = await finished('test-steps');
    expect(run.id).toBe(sleeping.id);
    expect(run.status).toBe('completed');
    expect(run.output).toEqual({ b: 2 });
    expect(executed.filter((e) => e === 'a:s1')).toHaveLength(1);
    expect(executed).not.toContain('a:skipped');
    expect(await runsOf(app(), 'test-steps')).toHaveLength(1);
    const events = await app().database.pool.query(`SELECT data FROM executor_events WHERE name = 'test/announced'`);
    expect(events.rows.map((r) => r.data)).toEqual([{ tag: 's1' }]);
  });

  it('waitForEvent: matched, not matched, and timed out (null)', async () => {
    await send('test/wait', { id: 'w1' });
    await send('test/wait', { id: 'w2' });
    await until(async () => (await runsOf(app(), 'test-waiter')).filter((r) => r.status === 'waiting').length === 2);
    await send('test/reply', { id: 'other' });
    await send('test/reply', { id: 'w1', answer: 42 });
    const [done] = await finished('test-waiter');
    expect((done.event as { data: { id: string } }).data.id).toBe('w1');
    expect(done.output).toMatchObject({ got: { name: 'test/reply', data: { id: 'w1', answer: 42 } } });
    clock.advance(3_600_000 + 1000);
    executor.poke();
    const all = await finished('test-waiter', 2);
    const timedOut = all.find((r) => (r.event as { data: { id: string } }).data.id === 'w2')!;
    expect(timedOut.output).toEqual({ got: null });
  });

  it('one batch of events resumes each waiting run once, with the first event of the batch that matches it', async () => {
    await send('test/wait', { id: 'b1' });
    await send('test/wait', { id: 'b2' });
    await until(async () => (await runsOf(app(), 'test-waiter')).filter((r) => r.status === 'waiting' && ['b1', 'b2'].includes((r.event as { data: { id: string } }).data.id)).length === 2);
    await client.send([
      { name: 'test/reply', data: { id: 'b1', answer: 1 } },
      { name: 'test/unrelated', data: { id: 'b2' } },
      { name: 'test/reply', data: { id: 'b1', answer: 2 } },
      { name: 'test/reply', data: { id: 'b2', answer: 3 } },
    ] as never);
    const done = await until(async () => {
      const runs = (await runsOf(app(), 'test-waiter')).filter((r) => ['b1', 'b2'].includes((r.event as { data: { id: string } }).data.id));
      return runs.every((r) => r.status === 'completed') ? runs : null;
    });
    const got = Object.fromEntries(done.map((r) => [(r.event as { data: { id: string } }).data.id, (r.output as { got: { data: { answer: number } } }).got.data.answer]));
    expect(got).toEqual({ b1: 1, b2: 3 });
  });

  it('retries a failing step with backoff, then succeeds', async () => {
    await send('test/flaky', {});
    await until(async () => flakyCalls >= 1);
    for (let i = 0; i < 6 && flakyCalls < 3; i++) {
      clock.advance(5000);
      executor.poke();
      await new Promise((r) => setTimeout(r, 150));
    }
    const [run] = await finished('test-flaky');
    expect(run.status).toBe('completed');
    expect(run.output).toBe('ok');
    expect(flakyCalls).toBe(3);
  });

  it('exhausted retries fail the run and run onFailure; NonRetriableError fails at once', async () => {
    await send('test/doomed', {});
    await until(async () => (await runsOf(app(), 'test-doomed'))[0]?.attempt === 1);
    clock.advance(5000);
    executor.poke();
    const [run] = await finished('test-doomed');
    expect(run.status).toBe('failed');
    await until(async () => failures.length === 1);
    expect(failures[0]).toMatchObject({ function_id: 'test-doomed', run_id: run.id });

    await send('test/hopeless', {});
    const [hopeless] = await finished('test-hopeless');
    expect(hopeless.status).toBe('failed');
    expect(executed.filter((e) => e === 'refuse')).toHaveLength(1);
  });

  it('runs parallel steps and invokes another function', async () => {
    await send('test/fanout', {});
    await send('test/parent', {});
    const [fan] = await finished('test-fanout');
    expect(fan.output).toBe(60);
    const [parent] = await finished('test-parent');
    expect(parent.output).toEqual({ child: 42 });
  });

  it('fires cron triggers when due, and cancelOn cancels a matching run', async () => {
    clock.advance(61_000);
    executor.poke();
    await until(async () => executed.includes('tick'));
    await send('test/long', { id: 'L1' });
    await send('test/long', { id: 'L2' });
    await until(async () => (await runsOf(app(), 'test-cancellable')).filter((r) => r.status === 'sleeping').length === 2);
    await send('test/cancel', { id: 'L1' });
    const runs = await runsOf(app(), 'test-cancellable');
    const byId = Object.fromEntries(runs.map((r) => [(r.event as { data: { id: string } }).data.id, r.status]));
    expect(byId).toEqual({ L1: 'cancelled', L2: 'sleeping' });
  });

  it('sleepUntil wakes at the given time', async () => {
    await send('test/until', {});
    await until(async () => (await runsOf(app(), 'test-until'))[0]?.status === 'sleeping');
    clock.advance(61_000);
    executor.poke();
    const [run] = await finished('test-until');
    expect(run.output).toBe('woke');
  });
});
