/**
 * `npm run soak`: the durable engine under kill -9. Starts the production server (npm start's
 * scripts/start.ts, API only, STEWARD_SOAK=1 so it serves the soak function of
 * inngest/soak-function.ts) on an embedded PostgreSQL, starts SOAK_RUNS runs of ten steps whose
 * effects write rows keyed by (run, step), SIGKILLs the server SOAK_KILLS times at random moments
 * and restarts it, then lets the last server finish and stops it with SIGTERM. Writes bench/soak.json:
 *   runs, completed               runs started and completed (want: SOAK_RUNS, SOAK_RUNS)
 *   duplicateEffects              steps that ran again although their result was recorded (want 0)
 *   lostRuns                      events without a run, runs failed or cancelled, completed runs missing an effect (want 0)
 *   stuckRuns                     runs not finished when the soak ends (want 0)
 *   killsWithRunsUnderWay         kills that came while runs were still open (want: all of them)
 *   reexecutedUnrecorded          steps that ran again because the kill came between their effect
 *                                 and their checkpoint: at-least-once, which no engine can avoid
 *                                 unless the effect joins the step's own transaction (allowed;
 *                                 `reexecutedUnrecordedAllowed` in the report says why)
 *   seconds                       how long the soak took
 * `checks` repeats each figure with what it must be; the soak exits 1 when one fails (a recorded
 * step that ran again above all), and stops every server and database it started on any exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { applyMigrations } from '../db/migrate';
import { ingestEvents } from '../server/executor/store';

const RUNS = Number(process.env.SOAK_RUNS ?? 200);
const KILLS = Number(process.env.SOAK_KILLS ?? 20);
/**
 * Mean time a step works before its effect, so the runs are still going when the kills come: with
 * the executor's 64 workers, 200 runs of ten such steps outlast the twenty kills' working time.
 */
const WORK_MS = Number(process.env.SOAK_WORK_MS ?? 1500);
const LEASE_MS = Number(process.env.SOAK_LEASE_MS ?? 1000);
const FINISH_TIMEOUT_MS = Number(process.env.SOAK_FINISH_TIMEOUT_MS ?? 180_000);
const FUNCTION_ID = 'steward-soak';
const root = path.resolve(import.meta.dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 23)}] ${m}\n`);

function startServer(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'start.ts')], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
}

const signal = (child: ChildProcess, s: NodeJS.Signals) => {
  try {
    process.kill(-child.pid!, s);
  } catch {
    // already gone
  }
};

async function exited(child: ChildProcess, timeoutMs: number) {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return Promise.race([new Promise<boolean>((r) => child.once('exit', () => r(true))), sleep(timeoutMs).then(() => false)]);
}

async function waitHealthy(port: number, child: ChildProcess) {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} while starting`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('the server did not start within 120 s');
}

/** What main started, stopped on any way out (an error included) so no server or database outlives the soak. */
const running: { server: ChildProcess | null; pg: { stop: () => Promise<void> } | null } = { server: null, pg: null };
async function cleanUp() {
  if (running.server) {
    signal(running.server, 'SIGKILL');
    await exited(running.server, 10_000);
    running.server = null;
  }
  await running.pg?.stop().catch(() => {});
  running.pg = null;
}

/** Why a step may run twice without it being a duplicate: the report carries it beside the figure. */
const REEXECUTED_ALLOWED =
  'A step that was running when its process was killed had done its work but had not checkpointed its result, so the run resumes ' +
  'by running it again: at-least-once for the work inside a step. No engine can avoid this unless the effect commits in the step’s ' +
  'own transaction. Steward’s own effects are written to be idempotent by (run, step) (a dispatch’s send is claimed before it is ' +
  'made and never repeated after its claim), so running the step again never acts twice. A step whose result was recorded never runs again (duplicateEffects).';

async function main() {
  const started = Date.now();
  const pgServer = await startThrowawayDatabase('soak');
  running.pg = pgServer;
  await applyMigrations(pgServer.url);
  const database = connect(pgServer.url, { max: 4 });
  const q = async <T>(text: string, params: unknown[] = []) => (await database.pool.query(text, params)).rows as T[];
  await q(`CREATE TABLE soak_effects (run_id text NOT NULL, step text NOT NULL, recorded_before boolean NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`);

  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: pgServer.url,
    STEWARD_PAGES: 'off',
    STEWARD_SOAK: '1',
    STEWARD_EXECUTOR_LEASE_MS: String(LEASE_MS),
    STEWARD_PUBLIC_URL: `http://127.0.0.1:${port}`,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
  };
  let server = (running.server = startServer(env));
  await waitHealthy(port, server);
  for (let i = 0; i < 600 && !(await q(`SELECT 1 FROM executor_functions WHERE id = $1`, [FUNCTION_ID])).length; i++) await sleep(100);
  await ingestEvents(database.db, Array.from({ length: RUNS }, (_, i) => ({ name: 'steward/soak.go', data: { i, workMs: WORK_MS } })), new Date());
  log(`${RUNS} runs sent; ${KILLS} kills follow`);

  let killsMidRun = 0;
  for (let k = 1; k <= KILLS; k++) {
    // A random moment while the server works: once it is up, within a few of its leases (the runs the
    // killed process held come back after one), so most kills land in the middle of calls.
    await sleep(300 + Math.random() * (LEASE_MS + 2500));
    signal(server, 'SIGKILL');
    await exited(server, 10_000);
    const [{ done }] = await q<{ done: number }>(`SELECT count(*)::int AS done FROM executor_runs WHERE function_id = $1 AND status = 'completed'`, [FUNCTION_ID]);
    if (done < RUNS) killsMidRun++;
    log(`kill ${k}/${KILLS}: ${done} runs completed so far`);
    server = running.server = startServer(env);
    await waitHealthy(port, server);
  }

  const until = Date.now() + FINISH_TIMEOUT_MS;
  for (;;) {
    const [{ open }] = await q<{ open: number }>(`SELECT count(*)::int AS open FROM executor_runs WHERE function_id = $1 AND status NOT IN ('completed', 'failed', 'cancelled')`, [FUNCTION_ID]);
    if (open === 0 || Date.now() > until) break;
    await sleep(250);
  }
  signal(server, 'SIGTERM');
  if (!(await exited(server, 20_000))) signal(server, 'SIGKILL');
  running.server = null;

  const [counts] = await q<{ runs: number; completed: number; failed: number; open: number }>(
    `SELECT count(*)::int AS runs,
            count(*) FILTER (WHERE status = 'completed' AND output = '"done"'::jsonb)::int AS completed,
            count(*) FILTER (WHERE status IN ('failed', 'cancelled'))::int AS failed,
            count(*) FILTER (WHERE status NOT IN ('completed', 'failed', 'cancelled'))::int AS open
     FROM executor_runs WHERE function_id = $1`,
    [FUNCTION_ID],
  );
  const [effects] = await q<{ duplicate: number; reexecuted: number; missing: number }>(
    `SELECT (SELECT count(*) FROM soak_effects WHERE recorded_before)::int AS duplicate,
            ((SELECT count(*) FROM soak_effects WHERE NOT recorded_before) - (SELECT count(*) FROM (SELECT DISTINCT run_id, step FROM soak_effects) d))::int AS reexecuted,
            (SELECT count(*) FROM executor_runs r WHERE r.function_id = $1 AND r.status = 'completed'
               AND (SELECT count(DISTINCT step) FROM soak_effects e WHERE e.run_id = r.id) < 10)::int AS missing`,
    [FUNCTION_ID],
  );
  // Why runs failed, if any did: the first thing to read when lostRuns is not 0.
  const failures = await q<{ error: string; runs: number }>(
    `SELECT coalesce(error->>'name', '') || ': ' || coalesce(left(error->>'message', 300), '') AS error, count(*)::int AS runs
     FROM executor_runs WHERE function_id = $1 AND status IN ('failed', 'cancelled') GROUP BY 1 ORDER BY 2 DESC`,
    [FUNCTION_ID],
  );
  const figures = {
    runs: counts.runs,
    completed: counts.completed,
    duplicateEffects: effects.duplicate,
    lostRuns: RUNS - counts.runs + counts.failed + effects.missing,
    stuckRuns: counts.open,
    reexecutedUnrecorded: effects.reexecuted,
    kills: KILLS,
    killsWithRunsUnderWay: killsMidRun,
  };
  // Each figure with what it must be; reexecutedUnrecorded has no bound (see REEXECUTED_ALLOWED).
  const want: Record<string, number | null> = { runs: RUNS, completed: RUNS, duplicateEffects: 0, lostRuns: 0, stuckRuns: 0, reexecutedUnrecorded: null, kills: KILLS, killsWithRunsUnderWay: KILLS };
  const checks = Object.fromEntries(Object.entries(figures).map(([k, got]) => [k, { got, want: want[k], ok: want[k] === null || got === want[k] }]));
  // killsWithRunsUnderWay short of the kills means the soak ended early for its machine, not that the engine failed: reported, not failed.
  const pass = ['runs', 'completed', 'duplicateEffects', 'lostRuns', 'stuckRuns'].every((k) => checks[k]!.ok);
  const result = {
    ...figures,
    reexecutedUnrecordedAllowed: REEXECUTED_ALLOWED,
    ...(failures.length ? { failures } : {}),
    stepsPerRun: 10,
    seconds: Math.round((Date.now() - started) / 1000),
    pass,
    checks,
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memMb: Math.round(os.totalmem() / 1048576), node: process.version },
  };
  writeFileSync(path.join(root, 'bench', 'soak.json'), JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  for (const [k, c] of Object.entries(checks)) log(`${c.ok ? 'ok  ' : 'FAIL'} ${k}: ${c.got}${c.want === null ? ' (allowed: at-least-once inside a step)' : ` (want ${c.want})`}`);
  await database.close();
  await cleanUp();
  process.exit(pass ? 0 : 1);
}

for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => void cleanUp().then(() => process.exit(130)));

main().catch(async (e) => {
  console.error(e);
  await cleanUp();
  process.exit(1);
});
