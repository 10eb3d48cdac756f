/**
 * `npm run bench`: Steward's production server (lean /api path, then /api through Next's
 * route files) against a bare node:http + pg baseline, on one throwaway PostgreSQL, in
 * the same run. Writes bench/results.json.
 *
 * Each part is measured on its own: one that fails is written to results.json as
 * `{ error }` under its name while the others keep their figures, and the run exits 1. Every
 * server and database the run started is stopped on any way out (an error, Ctrl-C, SIGTERM).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { combine, load, root, start, stop, stopEverything, stopEverythingOnExit, waitReady } from './processes';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;

type Measure = { reqPerSec: number; p50Ms: number; p99Ms: number; non2xx: number };
type Failed = { error: string };

/** Runs one part; its failure becomes `{ error }` in the report instead of ending the run. */
async function part<T>(name: string, fn: () => Promise<T>, failures: string[]): Promise<T | Failed> {
  try {
    return await fn();
  } catch (e) {
    const error = e instanceof Error ? `${e.message}${e.stack ? `\n${e.stack.split('\n').slice(1, 6).join('\n')}` : ''}` : String(e);
    process.stderr.write(`[bench] ${name} failed: ${error}\n`);
    failures.push(name);
    return { error };
  }
}

/** GET /api/me and GET /api/api-keys: the bare baseline, then Steward in both HTTP modes, each stopped whatever happens. */
async function httpFigures() {
  const pgServer = await startThrowawayDatabase('bench');
  try {
    const { url } = pgServer;
    const database = connect(url);
    const { apiKey } = await createAccount(database.db, 'Bench');
    // A realistic list: more keys than one page.
    for (let i = 0; i < 30; i++) await createAccount(database.db, `noise ${i}`);
    await database.close();

    const paths = ['/api/me', '/api/api-keys'];
    const results: Record<string, Record<string, (Measure & { ratio?: number; baseline?: Measure }) | Failed>> = {};
    const env = { DATABASE_URL: url, LOG_LEVEL: 'warn', RATE_LIMIT_READS_PER_MINUTE: '1000000000', NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' };

    // The bare baseline runs beside Steward for the whole measurement: rounds alternate bare,
    // Steward, Steward, bare (each half the duration), so load that comes and goes on a shared
    // machine falls on both alike instead of on whichever was measured second.
    const bareP = await freePort();
    const bare = start('bench/bare-server.ts', { ...env, PORT: String(bareP) });
    try {
      await waitReady(`http://127.0.0.1:${bareP}/api/me`);
      const modes = process.env.BENCH_HTTP_MODES?.split(',') ?? ['lean', 'next'];
      if (!existsSync(path.join(root, '.next', 'BUILD_ID'))) {
        await new Promise((resolve, reject) => {
          const b = spawn('npx', ['next', 'build'], { cwd: root, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
          b.on('exit', (code) => (code === 0 ? resolve(null) : reject(new Error('next build failed'))));
        });
      }
      for (const mode of modes) {
        const port = await freePort();
        const server = start('scripts/start.ts', { ...env, PORT: String(port), STEWARD_HTTP: mode });
        try {
          await waitReady(`http://127.0.0.1:${port}/api/openapi.json`);
          for (const p of paths) {
            const ours = `http://127.0.0.1:${port}${p}`;
            const theirs = `http://127.0.0.1:${bareP}${p}`;
            // Warm up code paths and pools before measuring.
            for (const u of [theirs, ours]) await autocannon({ url: u, connections: 10, amount: 500, headers: { Authorization: `Bearer ${apiKey}` } });
            const half = DURATION / 2;
            const bareRounds = [await load(theirs, apiKey, half)];
            const stewardRounds = [await load(ours, apiKey, half), await load(ours, apiKey, half)];
            bareRounds.push(await load(theirs, apiKey, half));
            const base = combine(bareRounds);
            const m = combine(stewardRounds);
            // The lean mode's baseline is the one reported as `bare`.
            (results[p] ??= {}).bare ??= base;
            results[p][mode] = { ...m, ratio: Number((m.reqPerSec / base.reqPerSec).toFixed(3)), baseline: base };
          }
        } finally {
          await stop(server);
        }
      }
    } finally {
      await stop(bare);
    }
    return Object.fromEntries(Object.entries(results).map(([p, r]) => [p, { ...r.lean, lean: r.lean, next: r.next, bare: r.bare }]));
  } finally {
    await pgServer.stop();
  }
}

/** The durable executor's own benchmark, once it exists (bench/executor.ts). */
async function benchExecutorIfPresent(): Promise<unknown> {
  const file = path.join(root, 'bench', 'executor.ts');
  if (!existsSync(file)) return null;
  const mod = (await import(file)) as { benchExecutor?: () => Promise<unknown> };
  return mod.benchExecutor ? mod.benchExecutor() : null;
}

/**
 * Further benchmark sections, one module each (bench/<name>.ts exporting `bench()`): each starts
 * what it measures and its baseline itself, in this same run, and returns its keys for
 * bench/results.json under its name (`tasks.list.ratio` is `{ tasks: { list: { ratio } } }`).
 * BENCH_ONLY=tasks,carts,lists,workspace,trust,idempotency,executor,cluster,memory,console runs just those sections
 * (`endpoints` names the HTTP figures above; BENCH_ONLY=none is the HTTP figures alone) and merges
 * them into the results.json already there: the sections it did not run keep their figures, a
 * section it ran keeps the keys it did not measure (sms's figures join channels'), and `partial`
 * says what this run measured. BENCH_HTTP_MODES=lean measures the lean path only.
 */
const WRITTEN_UNDER: Record<string, string> = { sms: 'channels', slack: 'channels', telegram: 'channels', shell: 'workspace' };
const SECTIONS = ['tasks', 'carts', 'lists', 'workspace', 'chats', 'skills', 'trust', 'idempotency', 'channels', 'hosted', 'shell', 'slack', 'sms', 'telegram', 'voice', 'cluster', 'memory', 'console', 'calendar'];

async function main() {
  stopEverythingOnExit();
  const failures: string[] = [];
  const only = process.env.BENCH_ONLY?.split(',').map((s) => (s.trim() === 'none' ? 'endpoints' : s.trim()));
  const endpoints = !only || only.includes('endpoints') ? await part('endpoints', httpFigures, failures) : null;
  const executor = !only || only.includes('executor') ? await part('executor', benchExecutorIfPresent, failures) : null;
  const sections: Record<string, unknown> = {};
  for (const name of SECTIONS) {
    if (only && !only.includes(name)) continue;
    const file = path.join(root, 'bench', `${name}.ts`);
    if (!existsSync(file)) continue;
    sections[name] = await part(name, async () => ((await import(file)) as { bench?: () => Promise<unknown> }).bench?.(), failures);
    // What a failed section left running is stopped before the next one starts.
    if (failures.at(-1) === name) await stopEverything();
  }
  // Some sections measure keys the issues name under another section (issue 32's and 33's
  // `channels.smsToModelMs`, `channels.slackAckP99Ms`; issue 34's `workspace.shellStartMs`): their
  // figures are written there. A failed one stays under its own name with its error.
  for (const [name, into] of Object.entries(WRITTEN_UNDER)) {
    const figures = sections[name];
    if (!figures || typeof figures !== 'object' || 'error' in figures) continue;
    const target = sections[into];
    if (target && typeof target === 'object' && 'error' in target) continue;
    sections[into] = { ...(target as object | undefined), ...figures };
    delete sections[name];
  }
  const full = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    load: { connections: CONNECTIONS, durationSeconds: DURATION },
    target: { ratio: 0.8, p99WithinMsOfBaseline: 5 },
    endpoints,
    chosenHttpPath: 'lean',
    ...(executor ? { executor } : {}),
    ...sections,
    ...(failures.length ? { failed: failures } : {}),
  };
  const report = only ? mergedInto(previousReport(), full, only) : full;
  writeFileSync(path.join(root, 'bench', 'results.json'), JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  await stopEverything();
  process.exit(failures.length ? 1 : 0);
}

type Report = Record<string, unknown>;
const isFigures = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !('error' in v);

function previousReport(): Report {
  try {
    return JSON.parse(readFileSync(path.join(root, 'bench', 'results.json'), 'utf8')) as Report;
  } catch {
    return {};
  }
}

/** A partial run (BENCH_ONLY) over the last full report: only what it measured changes. */
function mergedInto(previous: Report, run: Report, only: string[]): Report {
  const merged: Report = { ...previous };
  for (const [key, value] of Object.entries(run)) {
    if (value === null || value === undefined || key === 'failed') continue;
    merged[key] = isFigures(value) && isFigures(previous[key]) ? { ...previous[key], ...value } : value;
  }
  if (run.failed) merged.failed = run.failed;
  else delete merged.failed;
  merged.partial = { date: run.date, measured: only, since: previous.partial ? (previous.partial as { since?: unknown }).since : previous.date };
  return merged;
}

main().catch(async (e) => {
  console.error(e);
  await stopEverything();
  process.exit(1);
});
