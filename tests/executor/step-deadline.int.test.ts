import { asc, eq } from 'drizzle-orm';
import { Inngest } from 'inngest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executorStepLog } from '@/db/schema';
import { startExecutor, type Executor } from '@/server/executor/executor';
import { stepDeadlineMiddleware } from '@/server/executor/step-deadline-middleware';
import { ingestEvents } from '@/server/executor/store';
import type { StepDeadlineTable } from '@/server/executor/step-deadlines';
import { useTestServer } from '../helpers/server';
import { eventKey, ingressFor, mounts, runsOf, serveAndRegister, signingKey, until } from './harness';

/*
 * No step runs forever (issue 49). A step still running at its deadline fails its attempt, which
 * is retried with backoff; what it yields later is dropped. A call that hangs outside any step is
 * abandoned by the executor at its function's longest deadline plus the slack, and retried alike.
 */
const app = useTestServer({ mounts });
const deadlines: StepDeadlineTable = { 'hang-step': { default: '5s', steps: { slow: '400ms' } }, 'hang-body': { default: '300ms' } };
let ingress: Awaited<ReturnType<typeof ingressFor>>;
let executor: Executor;
const attempts: Array<{ fn: string; attempt: number; at: number }> = [];

type Ctx = { step: { run: <T>(id: string, fn: () => T | Promise<T>) => Promise<T> }; attempt: number };

beforeAll(async () => {
  ingress = await ingressFor(app());
  const client = new Inngest({ id: 'test', isDev: false, checkpointing: true, signingKey, eventKey, baseUrl: ingress.url, middleware: [stepDeadlineMiddleware(deadlines)] } as never);
  const hangStep = client.createFunction({ id: 'hang-step', retries: 2, triggers: [{ event: 'd/step' }] } as never, (async ({ step }: Ctx) => {
    const slow = await step.run('slow', async () => {
      const n = attempts.filter((a) => a.fn === 'slow').length;
      attempts.push({ fn: 'slow', attempt: n, at: Date.now() });
      // The first attempt answers only long after its deadline: that late answer must be dropped.
      if (n === 0) return new Promise<string>((r) => setTimeout(() => r('late'), 2_500));
      return 'in time';
    });
    const after = await step.run('after', () => 'after');
    return { slow, after };
  }) as never);
  const hangBody = client.createFunction({ id: 'hang-body', retries: 2, triggers: [{ event: 'd/body' }] } as never, (async ({ step, attempt }: Ctx) => {
    attempts.push({ fn: 'body', attempt, at: Date.now() });
    // Hangs outside any step on its first attempt: only the executor can end that call.
    if (attempt === 0) await new Promise(() => {});
    return step.run('after', () => 'recovered');
  }) as never);
  await serveAndRegister(app(), client, [hangStep, hangBody]);
  executor = await startExecutor({
    db: app().database.db,
    databaseUrl: app().database.pool.options.connectionString as string,
    signingKey,
    workers: 2,
    idleMs: 100,
    deadlines,
    deadlineSlackMs: 200,
  });
});
afterAll(async () => {
  await executor?.stop({ deadlineMs: 500 });
  await ingress?.close();
});

const stepLog = (runId: string) => app().database.db.select().from(executorStepLog).where(eq(executorStepLog.runId, runId)).orderBy(asc(executorStepLog.createdAt));

describe('step deadlines', () => {
  it('a step past its deadline fails its attempt, is retried with backoff, and its late result is dropped', async () => {
    await ingestEvents(app().database.db, [{ name: 'd/step', data: {} }], new Date());
    const [run] = await until(async () => {
      const runs = await runsOf(app(), 'test-hang-step');
      return runs[0]?.status === 'completed' ? runs : null;
    }, 20_000);
    expect(run.output).toEqual({ slow: 'in time', after: 'after' });
    const slow = attempts.filter((a) => a.fn === 'slow');
    expect(slow).toHaveLength(2);
    // The deadline (400 ms), then the first retry's backoff (1 s).
    expect(slow[1]!.at - slow[0]!.at).toBeGreaterThanOrEqual(1_300);
    const log = await stepLog(run.id);
    const error = log.find((l) => l.op === 'StepError');
    expect(error?.data).toMatchObject({ name: 'StepDeadlineExceeded', message: expect.stringContaining('400 ms') });
    // The first attempt's answer came after its call had been answered: it is nowhere.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(JSON.stringify((await runsOf(app(), 'test-hang-step'))[0]!.steps)).not.toContain('late');
  }, 40_000);

  it('a call that hangs outside any step is abandoned at its deadline and retried', async () => {
    await ingestEvents(app().database.db, [{ name: 'd/body', data: {} }], new Date());
    const [run] = await until(async () => {
      const runs = await runsOf(app(), 'test-hang-body');
      return runs[0]?.status === 'completed' ? runs : null;
    }, 20_000);
    expect(run.output).toBe('recovered');
    const calls = attempts.filter((a) => a.fn === 'body');
    expect(calls.map((c) => c.attempt).slice(0, 2)).toEqual([0, 1]);
    // The call's deadline (300 ms + 200 ms of slack), then the backoff (1 s); not the lease (60 s).
    expect(calls[1]!.at - calls[0]!.at).toBeLessThan(5_000);
    const log = await stepLog(run.id);
    expect(log.find((l) => l.name === 'deadline')).toMatchObject({ op: 'StepError', attempt: 0, data: { name: 'StepDeadlineExceeded' } });
  }, 40_000);
});
