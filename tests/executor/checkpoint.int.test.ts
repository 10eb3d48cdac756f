import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestEvents } from '@/server/executor/store';
import { useTestServer } from '../helpers/server';
import { eventKey, executorFor, ingressFor, mounts, runsOf, serveAndRegister, serveHolder, signingKey, testClient, testClock, until } from './harness';

const app = useTestServer({ mounts });
let ingress: Awaited<ReturnType<typeof ingressFor>>;
let serveCalls = 0;
const ran: string[] = [];

type Ctx = { step: { run: <T>(id: string, fn: () => T) => Promise<T> } };

beforeAll(async () => {
  ingress = await ingressFor(app());
  const client = testClient(ingress.url);
  const five = client.createFunction({ id: 'five', triggers: [{ event: 'cp/five' }] } as never, (async ({ step }: Ctx) => {
    let sum = 0;
    for (let i = 1; i <= 5; i++) sum += await step.run(`n${i}`, () => (ran.push(`n${i}`), i));
    return sum;
  }) as never);
  await serveAndRegister(app(), client, [five]);
  const inner = serveHolder.handler!;
  serveHolder.handler = (req) => {
    if (req.method === 'POST') serveCalls++;
    return inner(req);
  };
});
afterAll(async () => {
  await ingress?.close();
});

describe('checkpointed calls', () => {
  it('runs several steps in one call, storing each step as the SDK checkpoints it', async () => {
    const executor = await executorFor(app(), testClock());
    await ingestEvents(app().database.db, [{ name: 'cp/five', data: {} }], new Date());
    const [run] = await until(async () => {
      const runs = await runsOf(app(), 'test-five');
      return runs[0]?.status === 'completed' ? runs : null;
    });
    await executor.stop();
    expect(run.output).toBe(15);
    // One call of the serve endpoint ran the five steps; each ran once and was stored in order.
    expect(serveCalls).toBe(1);
    expect(ran).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    expect(run.stack).toHaveLength(5);
    const { rows } = await app().database.pool.query(`SELECT name, op FROM executor_step_log WHERE run_id = $1 ORDER BY created_at`, [run.id]);
    expect(rows).toEqual(['n1', 'n2', 'n3', 'n4', 'n5'].map((name) => ({ name, op: 'StepRun' })));
  });

  it('a process killed in the middle of a checkpointed call repeats no step whose result was recorded', async () => {
    const pool = app().database.pool;
    await pool.query('CREATE TABLE crash_effects (run_id text, step text, pid int, at timestamptz DEFAULT clock_timestamp())');
    await pool.query('CREATE TABLE crash_calls (pid int)');
    const start = (hangAt: string) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'child-app.ts')], {
        env: { ...process.env, DATABASE_URL: pool.options.connectionString as string, SIGNING_KEY: signingKey, EVENT_KEY: eventKey, HANG_AT: hangAt, LEASE_MS: '1000' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      return new Promise<ChildProcess>((resolve, reject) => {
        child.stdout!.on('data', (d) => String(d).includes('ready') && resolve(child));
        child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
      });
    };
    const first = await start('s3');
    await ingestEvents(app().database.db, [{ name: 'c/batch', data: {} }], new Date());
    const effectsOf = async () => (await pool.query<{ step: string; pid: number }>('SELECT step, pid FROM crash_effects ORDER BY at')).rows;
    await until(async () => (await effectsOf()).some((e) => e.step === 's3'), 30_000);
    const [run] = await runsOf(app(), 'crash-batch');
    // s0..s2 were recorded while s3 was still running, all in the one call the first process made.
    const recorded = await pool.query(`SELECT name FROM executor_step_log WHERE run_id = $1 AND op = 'StepRun' ORDER BY created_at`, [run.id]);
    expect(recorded.rows.map((r) => r.name)).toEqual(['s0', 's1', 's2']);
    expect((await pool.query('SELECT count(*)::int AS n FROM crash_calls WHERE pid = $1', [first.pid])).rows[0].n).toBe(1);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    const second = await start('');
    const done = await until(async () => {
      const [r] = await runsOf(app(), 'crash-batch');
      return r?.status === 'completed' ? r : null;
    }, 30_000);
    second.kill('SIGKILL');
    expect(done.output).toBe('done');
    const effects = await effectsOf();
    const count = (s: string) => effects.filter((e) => e.step === s).length;
    // The recorded steps never ran again; only s3, in flight at the kill, ran twice.
    expect(['s0', 's1', 's2', 's3', 's4', 's5'].map(count)).toEqual([1, 1, 1, 2, 1, 1]);
    expect(effects.filter((e) => e.pid === second.pid).map((e) => e.step)).toEqual(['s3', 's4', 's5']);
    const log = await pool.query(`SELECT name FROM executor_step_log WHERE run_id = $1 AND op = 'StepRun' ORDER BY created_at`, [run.id]);
    expect(log.rows.map((r) => r.name)).toEqual(['s0', 's1', 's2', 's3', 's4', 's5']);
  });
});
