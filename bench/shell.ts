/**
 * The workspace shell's figures of `npm run bench` (issue 34, Performance): `shellStartMs` and
 * `shellRunMs`, for bench/results.json under `workspace`. Everything runs in this process, through
 * the same code the agent's tools use (the sandbox manager, the supervisor, the nested sandbox per
 * command), and each figure has a baseline measured in the same run:
 *
 * - `shellStartMs`: a user's sandbox from nothing running to its supervisor answering (bubblewrap
 *   with its namespaces, the system view, the cgroup and rlimits where they apply, the relay to
 *   the egress proxy, Node starting inside); each run a user whose sandbox is stopped. Baseline:
 *   the same Node process started bare (no sandbox) until it says it is ready. Target p50 ≤ 300 ms.
 * - `shellRunMs`: a trivial command (`echo ok`) through UserSandbox.run (the quota check, the
 *   supervisor, prlimit and a nested bubblewrap with its own PID namespace, bash) until its result
 *   is back; baseline: the same `bash -c 'echo ok'` spawned directly by this process. Target p50 ≤ 50 ms.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandboxFor, stopAllSandboxes } from '../server/workspace/shell/manager';
import { spread } from './processes';

const START_RUNS = Number(process.env.BENCH_SHELL_START_RUNS ?? 20);
const RUN_RUNS = Number(process.env.BENCH_SHELL_RUN_RUNS ?? 100);

/** Resolves when the child writes its first line; the child is then ended. */
function firstLine(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    child.on('error', reject);
    child.stdout.once('data', () => {
      child.kill('SIGKILL');
      resolve();
    });
  });
}

function bare(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

async function shellStart() {
  const steward: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i <= START_RUNS; i++) {
    const userId = `bench${String(i).padStart(19, '0')}`;
    let t = performance.now();
    const sandbox = await sandboxFor('shellbench', userId);
    // The first of each is a warm-up (binaries and libraries read from disk).
    if (i > 0) steward.push(performance.now() - t);
    await sandbox.stop();
    t = performance.now();
    await firstLine(process.execPath, ['-e', 'process.stdout.write(JSON.stringify({ type: "ready" }) + "\\n"); setInterval(() => {}, 1000)']);
    if (i > 0) baseline.push(performance.now() - t);
  }
  const s = spread(steward);
  return { ...s, baseline: { ...spread(baseline), what: 'the same Node process started bare, without the sandbox, until it says ready' }, target: 300, met: s.p50 <= 300 };
}

async function shellRun() {
  const sandbox = await sandboxFor('shellbench', 'runner');
  const steward: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < RUN_RUNS + 5; i++) {
    let t = performance.now();
    const r = await sandbox.run('echo ok', { timeoutMs: 10_000 });
    if (r.stdout !== 'ok\n') throw new Error(`the sandbox answered ${JSON.stringify(r)}`);
    if (i >= 5) steward.push(performance.now() - t);
    t = performance.now();
    if ((await bare('echo ok')) !== 'ok\n') throw new Error('bare bash failed');
    if (i >= 5) baseline.push(performance.now() - t);
  }
  await sandbox.stop();
  const s = spread(steward);
  return { ...s, baseline: { ...spread(baseline), what: "bash -c 'echo ok' spawned directly by this process, without the sandbox" }, target: 50, met: s.p50 <= 50, cgroup: sandbox.cgroup ? `v${sandbox.cgroup.version}` : 'none (rlimits only)' };
}

export async function bench() {
  const saved = { dir: process.env.STEWARD_WORKSPACE_DIR, db: process.env.DATABASE_URL };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-shell-bench-'));
  // Run as root, sandboxes run as another user, who must pass through the folders to the homes.
  chmodSync(dir, 0o711);
  process.env.STEWARD_WORKSPACE_DIR = dir;
  // Nothing to record: the bench's users exist in no database.
  delete process.env.DATABASE_URL;
  try {
    const shellStartMs = await shellStart();
    const shellRunMs = await shellRun();
    return { shellStartMs, shellRunMs };
  } finally {
    await stopAllSandboxes();
    rmSync(dir, { recursive: true, force: true });
    for (const [name, value] of [
      ['STEWARD_WORKSPACE_DIR', saved.dir],
      ['DATABASE_URL', saved.db],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  bench()
    .then((r) => {
      process.stdout.write(JSON.stringify(r, null, 2) + '\n');
      process.exit(0);
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
