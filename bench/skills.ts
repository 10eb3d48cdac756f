/**
 * The skills section of `npm run bench` (issue 18, Performance), under `skills` in
 * bench/results.json. Steward's production server (API only, built-in executor) on a throwaway
 * PostgreSQL, with 1,000 workflows of one user on a minutely cron, and in the same run a bare
 * baseline: 1,000 plain INSERTs of a row per workflow with the same parallelism, started at the
 * same kind of instant.
 *
 * - `cronLatenessP99Ms`: for every firing of one minute, when its row and its task became
 *   visible (committed; polled every 50 ms) minus the minute it was due; p50/p99 over the 1,000.
 * - `idleCpuPercent`: the server process's CPU (user + system, /proc) between two firings: from
 *   the moment every run of the minute's 1,000 tasks has ended (`runsDrainedAfterMs` after the
 *   minute; no model is configured, so each run ends with model_not_configured) to 2 s before the
 *   next minute (`idleWindowMs`), as a share of one core; beside it an idle bare node process.
 *   null when the runs did not drain with at least 5 s to spare.
 */
import { readFileSync } from 'node:fs';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { apiServerEnv, sleep, spread, start, stop, waitReady } from './processes';
import { api, benchUser } from './tasks';

const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 1_000);

const cpuTicks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(f[11]) + Number(f[12]);
};
/** CPU share of one core used by `pid` over `ms`. */
async function cpuPercent(pid: number, ms: number): Promise<number> {
  const before = cpuTicks(pid);
  await sleep(ms);
  return Math.round(((cpuTicks(pid) - before) / 100 / (ms / 1000)) * 1000) / 10;
}
const untilSecond = (s: number) => sleep(((60 + s - new Date().getUTCSeconds()) % 60) * 1000 - new Date().getUTCMilliseconds() + 50);

export async function bench() {
  const pgServer = await startThrowawayDatabase('skills_bench');
  const database = connect(pgServer.url, { max: 8 });
  const { apiKey: accountKey } = await createAccount(database.db, 'Skills bench');
  const env = {
    ...apiServerEnv(pgServer.url),
  };
  const port = await freePort();
  const steward = start('scripts/start.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  const idle = start('bench/bare-server.ts', { ...env, PORT: String(await freePort()) });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/api/openapi.json`);
    const user = await benchUser(base, accountKey);
    for (let i = 0; i < WORKFLOWS; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, WORKFLOWS - i) }, (_, j) =>
          api(base, '/skills', user.key, { body: { kind: 'workflow', name: `every-minute-${i + j}`, title: 'Tick', description: 'Every minute', triggers: [{ on: 'cron', schedule: { frequency: 'minutely' } }] } }),
        ),
      );
    }
    // Let one minute pass in full (warm-up), then measure the next one.
    await untilSecond(0);
    await untilSecond(0);
    const due = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    // Lateness as a user sees it: when each firing's row (and its task, same transaction) became
    // visible, by polling every 50 ms from the minute on (an upper bound by at most one poll).
    const seenAt = new Map<string, number>();
    // 15 s for the minute's firings; on a loaded machine the first may come later: up to 50 s for one.
    while (seenAt.size < WORKFLOWS && (Date.now() < due.getTime() + 15_000 || (seenAt.size === 0 && Date.now() < due.getTime() + 50_000))) {
      const { rows } = await database.pool.query<{ id: string }>(`SELECT id FROM workflow_firings WHERE event_key LIKE $1`, [`%:${due.toISOString()}`]);
      const now = Date.now();
      for (const r of rows) if (!seenAt.has(r.id)) seenAt.set(r.id, now - due.getTime());
      await sleep(50);
    }
    // The minute's runs drain (each ends at once without a model); then the quiet until the next minute.
    let drainedAt = 0;
    while (Date.now() < due.getTime() + 55_000) {
      const { rows } = await database.pool.query<{ n: number; open: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE r.status IN ('queued', 'running'))::int AS open
           FROM workflow_firings f JOIN task_runs r ON r.task_id = f.task_id WHERE f.event_key LIKE $1`,
        [`%:${due.toISOString()}`],
      );
      if (rows[0]!.n >= WORKFLOWS && rows[0]!.open === 0) {
        drainedAt = Date.now();
        break;
      }
      await sleep(250);
    }
    const lateness = spread([...seenAt.values()]);
    // Idle between firings: from the moment the minute's work is done to 2 s before the next minute.
    const windowMs = drainedAt ? due.getTime() + 58_000 - Date.now() : 0;
    const idleCpu = windowMs >= 5_000 ? await cpuPercent(steward.pid!, windowMs) : null;
    const bareIdleCpu = await cpuPercent(idle.pid!, Math.max(windowMs, 5_000));

    // The baseline: the same number of single-row transactions, eight at a time.
    await database.pool.query('CREATE TABLE IF NOT EXISTS bench_firings (id serial PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT clock_timestamp())');
    const t0 = Date.now();
    const bareMs: number[] = [];
    let n = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (n++ < WORKFLOWS) {
          await database.pool.query('INSERT INTO bench_firings DEFAULT VALUES');
          bareMs.push(Date.now() - t0);
        }
      }),
    );
    return {
      workflows: WORKFLOWS,
      firingsMeasured: lateness.n,
      cronLatenessP50Ms: Math.round(lateness.p50),
      cronLatenessP99Ms: Math.round(lateness.p99),
      cronLatenessP99Target: 2_000,
      runsDrainedAfterMs: drainedAt ? drainedAt - due.getTime() : null,
      bareInsertsP99Ms: Math.round(spread(bareMs).p99),
      idleCpuPercent: idleCpu,
      idleWindowMs: windowMs,
      idleCpuTarget: 2,
      bareIdleCpuPercent: bareIdleCpu,
    };
  } finally {
    await stop(steward);
    await stop(idle);
    await database.close();
    await pgServer.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  bench().then((r) => console.log(JSON.stringify(r, null, 2)), (e) => {
    console.error(e);
    process.exit(1);
  });
}
