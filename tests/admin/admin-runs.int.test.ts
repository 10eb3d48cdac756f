import { NonRetriableError } from 'inngest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExecutor, type Executor } from '@/server/executor/executor';
import { ingestEvents } from '@/server/executor/store';
import { admin } from '../helpers/admin-cli';
import { useTestServer } from '../helpers/server';
import { ingressFor, mounts, runsOf, serveAndRegister, signingKey, testClient, until } from '../executor/harness';

/** The operators' side of durable work: `runs` filters, `run cancel`, `run replay` from the failed step. */
const app = useTestServer({ mounts });
const dbUrl = () => app().database.pool.options.connectionString as string;
let ingress: Awaited<ReturnType<typeof ingressFor>>;
let executor: Executor;
const ran: string[] = [];
let healed = false;

type Ctx = { step: { run: <T>(id: string, fn: () => T) => Promise<T>; sleep: (id: string, d: string) => Promise<void> } };

beforeAll(async () => {
  ingress = await ingressFor(app());
  const client = testClient(ingress.url);
  const fragile = client.createFunction({ id: 'fragile', retries: 0, triggers: [{ event: 'a/fragile' }] } as never, (async ({ step }: Ctx) => {
    await step.run('fetch', () => ran.push('fetch'));
    await step.run('charge', () => {
      ran.push('charge');
      if (!healed) throw new NonRetriableError('card declined');
      return 'charged';
    });
    return 'ok';
  }) as never);
  const dozer = client.createFunction({ id: 'dozer', triggers: [{ event: 'a/dozer' }] } as never, (async ({ step }: Ctx) => {
    await step.sleep('nap', '1h');
    await step.run('after', () => ran.push('dozer-after'));
  }) as never);
  await serveAndRegister(app(), client, [fragile, dozer]);
  executor = await startExecutor({ db: app().database.db, databaseUrl: dbUrl(), signingKey, idleMs: 100 });
});
afterAll(async () => {
  await executor?.stop();
  await ingress?.close();
});

describe('admin CLI: runs', () => {
  it('replays a failed run from its failed step: steps that succeeded do not run again', async () => {
    await ingestEvents(app().database.db, [{ name: 'a/fragile', data: {} }], new Date());
    const failed = await until(async () => (await runsOf(app(), 'test-fragile')).find((r) => r.status === 'failed'));
    expect(ran).toEqual(['fetch', 'charge']);

    const listed = await admin(dbUrl(), 'runs', '--status', 'failed', '--function', 'test-fragile');
    expect(listed.code).toBe(0);
    expect(listed.out.runs.map((r: { id: string }) => r.id)).toEqual([failed.id]);

    healed = true;
    const replayed = await admin(dbUrl(), 'run', 'replay', '--id', failed.id);
    expect(replayed.code).toBe(0);
    expect(replayed.out).toMatchObject({ id: failed.id, status: 'queued', previous: 'failed', keptSteps: 1, rerunSteps: 1 });
    const done = await until(async () => (await runsOf(app(), 'test-fragile')).find((r) => r.status === 'completed'));
    expect(done.id).toBe(failed.id);
    expect(done.output).toBe('ok');
    expect(ran).toEqual(['fetch', 'charge', 'charge']);

    const detail = await admin(dbUrl(), 'run', '--id', failed.id);
    expect(detail.out.steps.map((s: { op: string }) => s.op)).toEqual(['StepRun', 'StepFailed', 'Replayed', 'StepRun']);
    // Only a failed or cancelled run can be replayed.
    const again = await admin(dbUrl(), 'run', 'replay', '--id', failed.id);
    expect(again.code).toBe(1);
    expect(again.out).toMatchObject({ ok: false, status: 409 });
  }, 90_000);

  it('cancels an open run, which then never resumes; filters by age; refuses what cannot be done', async () => {
    await ingestEvents(app().database.db, [{ name: 'a/dozer', data: {} }], new Date());
    const sleeping = await until(async () => (await runsOf(app(), 'test-dozer')).find((r) => r.status === 'sleeping'));

    expect((await admin(dbUrl(), 'runs', '--function', 'test-dozer', '--newer-than', '10m')).out.runs.map((r: { id: string }) => r.id)).toEqual([sleeping.id]);
    expect((await admin(dbUrl(), 'runs', '--function', 'test-dozer', '--older-than', '10m')).out.runs).toEqual([]);
    const badAge = await admin(dbUrl(), 'runs', '--older-than', 'yesterday');
    expect(badAge.out).toMatchObject({ ok: false, status: 400, error: expect.stringContaining('--older-than') });

    const cancelled = await admin(dbUrl(), 'runs', 'cancel', '--id', sleeping.id);
    expect(cancelled.out).toEqual({ id: sleeping.id, status: 'cancelled', previous: 'sleeping' });
    // Due now: were it still open, the executor would wake it.
    await app().database.pool.query(`UPDATE executor_runs SET available_at = now() - interval '1 second' WHERE id = $1`, [sleeping.id]);
    executor.poke();
    await new Promise((r) => setTimeout(r, 500));
    const [after] = (await runsOf(app(), 'test-dozer')).filter((r) => r.id === sleeping.id);
    expect(after.status).toBe('cancelled');
    expect(ran).not.toContain('dozer-after');

    expect((await admin(dbUrl(), 'run', 'cancel', '--id', sleeping.id)).out).toMatchObject({ ok: false, status: 409 });
    expect((await admin(dbUrl(), 'run', 'cancel', '--id', 'nope')).out).toMatchObject({ ok: false, status: 404 });
    expect((await admin(dbUrl(), 'run', 'cancel')).out).toMatchObject({ ok: false, status: 400 });
    expect((await admin(dbUrl(), 'run', 'rewind', '--id', sleeping.id)).out).toMatchObject({ ok: false, status: 400 });
  }, 90_000);
});
