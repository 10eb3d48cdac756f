/**
 * Executor benchmark: step executions per second through the built-in executor (real
 * Postgres, real HTTP to a real serve endpoint), and this process's CPU while idle.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { connect } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { startExecutor } from '../server/executor/executor';
import { startIngress } from '../server/executor/ingress';

const RUNS = Number(process.env.BENCH_EXECUTOR_RUNS ?? 300);
const STEPS = 10;

export async function benchExecutor(): Promise<{ stepsPerSecond: number; idleCpuPercent: number; runs: number; stepsPerRun: number }> {
  const pgServer = await startThrowawayDatabase('executor_bench');
  const database = connect(pgServer.url, { max: 20 });
  const signingKey = `signkey-bench-${randomBytes(32).toString('hex')}`;
  const eventKey = randomBytes(12).toString('hex');
  const ingress = await startIngress({ db: database.db, signingKey, eventKey });
  // The serve endpoint runs in its own process, as the app would beside the executor.
  const appProc = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'executor-app.ts')], {
    env: { ...process.env, SIGNING_KEY: signingKey, EVENT_KEY: eventKey, INGRESS_URL: ingress.url, STEPS: String(STEPS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) => appProc.stdout!.on('data', (d) => {
    const m = /port (\d+)/.exec(String(d));
    if (m) resolve(Number(m[1]));
  }));
  const origin = `http://127.0.0.1:${port}`;
  await fetch(`${origin}/api/inngest`, { method: 'PUT' });
  const executor = await startExecutor({ db: database.db, databaseUrl: pgServer.url, signingKey, workers: Number(process.env.BENCH_EXECUTOR_WORKERS ?? 8) });

  const started = performance.now();
  await fetch(`${ingress.url}/e/${eventKey}`, {
    method: 'POST',
    body: JSON.stringify(Array.from({ length: RUNS }, (_, i) => ({ name: 'bench/go', data: { i } }))),
  });
  for (;;) {
    const { rows } = await database.pool.query(`SELECT count(*)::int AS n FROM executor_runs WHERE status = 'completed'`);
    if (rows[0].n >= RUNS) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - started) / 1000;

  // Idle: nothing to do; the executor should sleep until NOTIFY or its safety timer.
  await new Promise((r) => setTimeout(r, 1000));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 5000));
  const cpu = process.cpuUsage(cpu0);
  const idleCpuPercent = Number((((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 100).toFixed(2));

  await executor.stop();
  await ingress.close();
  appProc.kill('SIGTERM');
  await database.close();
  await pgServer.stop();
  return { stepsPerSecond: Math.round((RUNS * STEPS) / seconds), idleCpuPercent, runs: RUNS, stepsPerRun: STEPS };
}

if (process.argv[1]?.endsWith('executor.ts')) {
  benchExecutor().then((r) => {
    process.stdout.write(JSON.stringify(r) + '\n');
    process.exit(0);
  });
}
