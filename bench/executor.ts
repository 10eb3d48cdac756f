/**
 * Executor benchmark, in one run against one throwaway Postgres, with the functions served in the
 * executor's process and reached in-process as npm start serves Steward's own (local-transport.ts);
 * `appProcessStepsPerSecond` repeats the throughput with them in a process of their own over HTTP:
 *  - stepsPerSecond: step executions a second, RUNS (1,000) runs of the 10-step function at once,
 *    with the executor's default number of workers;
 *  - idleCpuPercent: this process's CPU (ingress + executor) with nothing to do;
 *  - sleepingIdleCpuPercent: the same with SLEEPERS runs sleeping or waiting for an event;
 *  - wakeLatenessP99Ms (and min, p50, max, drainSeconds): when all of them fall due at the same
 *    moment, how late each one's code resumes (the time its next step runs, minus the time it was
 *    due). Each resumption is one call of the serve endpoint, so beyond the first few this measures
 *    how fast the machine works through SLEEPERS calls, not how late the executor notices them;
 *  - cohortWakeLatenessP99Ms (and p50): before that, COHORT (100) of them fall due together while
 *    the others sleep on: how late a run wakes when it is due among 10,000 sleeping ones;
 *  - wakeSdkFloorMs (and per resumption): the Inngest SDK's execution alone resuming SLEEPERS
 *    sleepers in this process, nothing else done (sdk-floor.ts): the floor under the drain;
 *  - wakeLatenessWithStuckWorkersP99Ms (and p50): afterwards, every worker but one is held by a
 *    step that does not return (a provider that never answers), and COHORT timers fall due
 *    together: how late they wake on the one free worker (the clock never waits for idle workers).
 * Before the sleepers are made, 2 × WARMUP clones wake at once and are removed (not measured).
 * The sleepers are clones of one real sleeping run and one real waiting run (same memo, same
 * wait), made in SQL: sending each through the serve endpoint to reach its sleep would only
 * lengthen the set-up.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { connect } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { DEFAULT_WORKERS, startExecutor } from '../server/executor/executor';
import { startIngress } from '../server/executor/ingress';
import { localFetch, registerLocal } from '../server/executor/local-transport';
import { localServe } from '../server/executor/local-serve';
import { plainProcessEnv } from '../server/process-env';
import { benchFunctions } from './executor-functions';
import { measureSdkWakeFloor } from './sdk-floor';

const RUNS = Number(process.env.BENCH_EXECUTOR_RUNS ?? 1000);
const STEPS = 10;
const SLEEPERS_DEFAULT = Number(process.env.BENCH_EXECUTOR_SLEEPERS ?? 10_000);
const COHORT = Number(process.env.BENCH_EXECUTOR_COHORT ?? 100);
const WARMUP = Number(process.env.BENCH_EXECUTOR_WARMUP ?? 250);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** This process's CPU over `ms`, as a percentage of one core. */
async function cpuPercent(ms: number) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(ms);
  const cpu = process.cpuUsage(cpu0);
  return Number((((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 100).toFixed(2));
}

async function measure(IN_PROCESS: boolean, SLEEPERS: number) {
  const pgServer = await startThrowawayDatabase('executor_bench');
  const database = connect(pgServer.url, { max: 20 });
  const q = async <T>(text: string, params: unknown[] = []) => (await database.pool.query(text, params)).rows as T[];
  const signingKey = `signkey-bench-${randomBytes(32).toString('hex')}`;
  const eventKey = randomBytes(12).toString('hex');
  const ingress = await startIngress({ db: database.db, signingKey, eventKey });
  // The serve endpoint in this process, reached in-process both ways as npm start serves Steward's
  // own functions (local-transport.ts), or in its own process over HTTP.
  let appProc: ReturnType<typeof spawn> | null = null;
  /** The in-process functions' hanging steps (the stuck-workers measurement). */
  let hangs: { hanging: () => number; release: () => void } | null = null;
  const unregister: (() => void)[] = [];
  let origin: string;
  if (IN_PROCESS) {
    plainProcessEnv(); // as npm start does
    origin = 'http://127.0.0.1:9'; // never dialled: every call to it is answered in-process
    const bench = benchFunctions({ signingKey, eventKey, ingressUrl: ingress.url, steps: STEPS, fetch: localFetch });
    const { client, functions } = bench;
    hangs = bench;
    const handler = localServe({ client, functions, serveOrigin: origin, servePath: '/api/inngest' });
    unregister.push(registerLocal(ingress.url, ingress.handle), registerLocal(`${origin}/api/inngest`, handler));
    await localFetch(`${origin}/api/inngest`, { method: 'PUT' });
  } else {
    appProc = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'executor-app.ts')], {
      env: { ...process.env, SIGNING_KEY: signingKey, EVENT_KEY: eventKey, INGRESS_URL: ingress.url, STEPS: String(STEPS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const port = await new Promise<number>((resolve) => appProc!.stdout!.on('data', (d) => {
      const m = /port (\d+)/.exec(String(d));
      if (m) resolve(Number(m[1]));
    }));
    origin = `http://127.0.0.1:${port}`;
    await fetch(`${origin}/api/inngest`, { method: 'PUT' });
  }
  // The executor's default number of workers (npm start's), unless BENCH_EXECUTOR_WORKERS says otherwise.
  const workers = process.env.BENCH_EXECUTOR_WORKERS ? Number(process.env.BENCH_EXECUTOR_WORKERS) : undefined;
  const executor = await startExecutor({ db: database.db, databaseUrl: pgServer.url, signingKey, workers });
  const send = (events: unknown[]) => fetch(`${ingress.url}/e/${eventKey}`, { method: 'POST', body: JSON.stringify(events) });
  const countWhere = async (where: string, params: unknown[] = []) => (await q<{ n: number }>(`SELECT count(*)::int AS n FROM executor_runs WHERE ${where}`, params))[0].n;

  // Throughput.
  const started = performance.now();
  await send(Array.from({ length: RUNS }, (_, i) => ({ name: 'bench/go', data: { i } })));
  while ((await countWhere(`function_id = 'bench-steps' AND status = 'completed'`)) < RUNS) await sleep(20);
  const seconds = (performance.now() - started) / 1000;

  // Idle: nothing to do; the executor should sleep until NOTIFY or its safety timer.
  await sleep(1000);
  const idleCpuPercent = await cpuPercent(5000);

  /** n clones of the function's sleeping or waiting runs, due at `at`; their ids. */
  const clone = async (fn: string, n: number, at: Date) =>
    (
      await q<{ id: string }>(
        `INSERT INTO executor_runs (id, function_id, event, status, steps, stack, attempt, wait, available_at)
         SELECT substr(md5(random()::text || g::text), 1, 24), r.function_id, r.event, r.status, r.steps, r.stack, r.attempt, r.wait, $3
         FROM executor_runs r, generate_series(1, $2::int) g WHERE r.function_id = $1 AND r.status IN ('sleeping', 'waiting')
         RETURNING id`,
        [fn, n, at],
      )
    ).map((r) => r.id);

  const sleepers = SLEEPERS > 0 ? await measureSleepers() : null;
  const stuck = SLEEPERS > 0 && hangs ? await measureStuckWorkers(hangs) : null;

  await executor.stop();
  await ingress.close();
  appProc?.kill('SIGTERM');
  for (const undo of unregister) undo();
  await database.close();
  await pgServer.stop();
  return {
    stepsPerSecond: Math.round((RUNS * STEPS) / seconds),
    idleCpuPercent,
    inProcess: IN_PROCESS,
    runs: RUNS,
    stepsPerRun: STEPS,
    workers: workers ?? DEFAULT_WORKERS,
    ...(sleepers
      ? {
          sleepingRuns: sleepers.asleep,
          sleepingIdleCpuPercent: sleepers.sleepingIdleCpuPercent,
          wakeLatenessMinMs: sleepers.late[0],
          wakeLatenessP50Ms: sleepers.pct(0.5),
          wakeLatenessP99Ms: sleepers.pct(0.99),
          wakeLatenessMaxMs: sleepers.late[sleepers.late.length - 1],
          wakeDrainSeconds: sleepers.drainSeconds,
          cohortWakeRuns: sleepers.cohort.length,
          cohortWakeLatenessP50Ms: sleepers.cohortPct(0.5),
          cohortWakeLatenessP99Ms: sleepers.cohortPct(0.99),
        }
      : {}),
    ...(stuck ? { stuckWorkers: stuck.stuckWorkers, wakeLatenessWithStuckWorkersP50Ms: stuck.pct(0.5), wakeLatenessWithStuckWorkersP99Ms: stuck.pct(0.99) } : {}),
  };
  /**
   * Every worker but one held by a step that does not return; COHORT timers (clones of one real
   * sleeping run) fall due together 3 s later, announced once as the process that put them to
   * sleep would set its own timer: how late each wakes, on the one free worker.
   */
  async function measureStuckWorkers(h: { hanging: () => number; release: () => void }) {
    const stuckWorkers = (workers ?? DEFAULT_WORKERS) - 1;
    await send(Array.from({ length: stuckWorkers }, () => ({ name: 'bench/hang', data: {} })));
    while (h.hanging() < stuckWorkers) await sleep(20);
    await send([{ name: 'bench/sleep', data: { at: new Date(Date.now() + 3_600_000).toISOString() } }]);
    while ((await countWhere(`function_id = 'bench-sleeper' AND status = 'sleeping'`)) < 1) await sleep(20);
    const dueAt = Date.now() + 3_000;
    const cohort = await clone('bench-sleeper', COHORT, new Date(dueAt));
    await q(`SELECT pg_notify('steward_executor', '')`);
    const giveUp = dueAt + 60_000;
    while ((await countWhere(`id = ANY($1) AND status = 'completed'`, [cohort])) < cohort.length) {
      if (Date.now() > giveUp) throw new Error('timers due while workers were stuck did not wake within 60 s');
      await sleep(50);
    }
    const late = (await q<{ ms: string }>(`SELECT (output::text)::bigint - $1::bigint AS ms FROM executor_runs WHERE id = ANY($2)`, [dueAt, cohort]))
      .map((r) => Number(r.ms))
      .sort((a, b) => a - b);
    // Let the held steps return, and put the template sleeper away.
    h.release();
    await q(`UPDATE executor_runs SET status = 'cancelled', finished_at = now() WHERE function_id = 'bench-sleeper' AND status = 'sleeping'`);
    while ((await countWhere(`function_id = 'bench-hang' AND status <> 'completed'`)) > 0) await sleep(50);
    return { stuckWorkers, pct: (p: number) => late[Math.min(late.length - 1, Math.ceil(p * late.length) - 1)] };
  }
  async function measureSleepers() {
    // SLEEPERS runs asleep or waiting, all due at `dueAt`: half clones of a sleeping run, half of a waiting one.
    const setupMs = 20_000 + SLEEPERS; // room for the clones, the idle measurement and the cohort
    const dueAt = Date.now() + setupMs;
    const cohortAt = dueAt - 6000;
    await send([{ name: 'bench/sleep', data: { at: new Date(dueAt).toISOString() } }, { name: 'bench/wait', data: {} }]);
    while ((await countWhere(`status IN ('sleeping', 'waiting')`)) < 2) await sleep(20);
    await q(`UPDATE executor_runs SET available_at = $1 WHERE status IN ('sleeping', 'waiting')`, [new Date(dueAt)]);
    // Warm-up, not measured: WARMUP of each wake now, so the resumption's code paths (a sleep's and a
    // wait's replay, the SDK's and the executor's) are compiled before anything below is timed, as
    // they are on a server that has been running. Then they are removed.
    const warm = [...(await clone('bench-sleeper', WARMUP, new Date())), ...(await clone('bench-waiter', WARMUP, new Date()))];
    await q(`SELECT pg_notify('steward_executor', '')`);
    while ((await countWhere(`id = ANY($1) AND status = 'completed'`, [warm])) < warm.length) await sleep(50);
    await q(`DELETE FROM executor_step_log WHERE run_id = ANY($1)`, [warm]);
    await q(`DELETE FROM executor_runs WHERE id = ANY($1)`, [warm]);
    await clone('bench-sleeper', Math.ceil(SLEEPERS / 2) - 1, new Date(dueAt));
    await clone('bench-waiter', Math.floor(SLEEPERS / 2) - 1, new Date(dueAt));
    await q('ANALYZE executor_runs');
    const asleep = await countWhere(`status IN ('sleeping', 'waiting')`);
    // The clones came without a NOTIFY (as runs put to sleep by another process would): the executor
    // already sleeps until the originals' due time, which is theirs too.
    await sleep(1000);
    const sleepingIdleCpuPercent = await cpuPercent(5000);
    if (Date.now() > cohortAt) throw new Error('the sleepers fell due before the idle measurement ended; raise setupMs');

    // A cohort of COHORT of them falls due first, while the rest sleep on: how late a run that falls
    // due wakes when 10,000 others sleep (what the indexes and the timer decide, not the throughput
    // of calls). Moving them earlier is announced as the process that put them to sleep would
    // schedule its own wake-up.
    const cohort = (
      await q<{ id: string }>(
        `UPDATE executor_runs SET available_at = $1 WHERE id IN (
           SELECT id FROM executor_runs WHERE function_id IN ('bench-sleeper', 'bench-waiter') AND status IN ('sleeping', 'waiting') ORDER BY id LIMIT $2
         ) RETURNING id`,
        [new Date(cohortAt), COHORT],
      )
    ).map((r) => r.id);
    await q(`SELECT pg_notify('steward_executor', '')`);
    while ((await countWhere(`id = ANY($1) AND status = 'completed'`, [cohort])) < cohort.length) await sleep(50);
    const cohortLate = (await q<{ ms: string }>(`SELECT (output::text)::bigint - $1::bigint AS ms FROM executor_runs WHERE id = ANY($2)`, [cohortAt, cohort]))
      .map((r) => Number(r.ms))
      .sort((a, b) => a - b);
    const cohortPct = (p: number) => cohortLate[Math.min(cohortLate.length - 1, Math.ceil(p * cohortLate.length) - 1)];
    if (Date.now() > dueAt) throw new Error('the cohort was still waking when the rest fell due; raise setupMs');

    while ((await countWhere(`function_id IN ('bench-sleeper', 'bench-waiter') AND status = 'completed'`)) < asleep) await sleep(50);
    const drainSeconds = Number(((Date.now() - dueAt) / 1000).toFixed(1));
    const late = (await q<{ ms: string }>(`SELECT (output::text)::bigint - $1::bigint AS ms FROM executor_runs WHERE function_id IN ('bench-sleeper', 'bench-waiter') AND NOT id = ANY($2)`, [dueAt, cohort]))
      .map((r) => Number(r.ms))
      .sort((a, b) => a - b);
    const pct = (p: number) => late[Math.min(late.length - 1, Math.ceil(p * late.length) - 1)];
    return { asleep, sleepingIdleCpuPercent, late, pct, drainSeconds, cohort, cohortPct };
  }
}

/**
 * The figures of Steward's own arrangement (npm start: the functions served in the executor's
 * process, reached in-process), and beside them the throughput with the functions in a process of
 * their own over HTTP (an app that serves its functions elsewhere).
 */
export async function benchExecutor() {
  const own = await measure(true, SLEEPERS_DEFAULT);
  const apart = await measure(false, 0);
  // What the SDK alone needs for as many resumptions, beside the latency it bounds (sdk-floor.ts).
  const floor = SLEEPERS_DEFAULT > 0 ? await measureSdkWakeFloor(SLEEPERS_DEFAULT, DEFAULT_WORKERS) : null;
  return {
    ...own,
    ...(floor ? { wakeSdkFloorMs: floor.ms, wakeSdkFloorPerResumptionMs: floor.perResumptionMs } : {}),
    appProcessStepsPerSecond: apart.stepsPerSecond,
    stepsPerSecondTarget: 1_000,
    wakeLatenessP99Target: 1_000,
    wakeLatenessWithStuckWorkersP99Target: 2_000,
  };
}

if (process.argv[1]?.endsWith('executor.ts')) {
  benchExecutor().then((r) => {
    process.stdout.write(JSON.stringify(r) + '\n');
    process.exit(0);
  });
}
