/**
 * What every benchmark section needs to run servers beside it: start a TypeScript entry point in
 * its own process group (so stopping it stops everything it started), wait until it answers, stop
 * it, load it with autocannon, and summarise latency samples. Everything started here is tracked,
 * and `stopEverything` (run on any way out of npm run bench) stops it, with the embedded
 * PostgreSQL servers the sections started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';

export const root = path.resolve(import.meta.dirname, '..');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Servers started and not yet stopped. */
const started = new Set<ChildProcess>();
/** The last lines each started server wrote (its logs go to stdout): what a start that failed said. */
const tails = new Map<ChildProcess, { file: string; lines: string[] }>();
const TAIL_LINES = 30;

/**
 * The environment of a production server (npm start) serving the API alone on `databaseUrl`: quiet
 * logs, a master key of its own, and rate limits no bench reaches. A section adds what it measures.
 */
export function apiServerEnv(databaseUrl: string) {
  return {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    STEWARD_PAGES: 'off',
    STEWARD_MASTER_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_READS_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
  };
}

export function start(file: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  started.add(child);
  // Stdout is read (a pipe nobody reads would stall the server) and only its tail is kept.
  const tail = { file, lines: [] as string[] };
  tails.set(child, tail);
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    tail.lines.push(...chunk.split('\n').filter(Boolean));
    tail.lines.splice(0, Math.max(0, tail.lines.length - TAIL_LINES));
  });
  child.once('exit', () => started.delete(child));
  return child;
}

export async function stop(child: ChildProcess) {
  started.delete(child);
  tails.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // the group is already gone
    }
  };
  // SIGTERM, not SIGINT: a shell's background jobs ignore SIGINT, and children inherit that.
  signal('SIGTERM');
  await Promise.race([done, sleep(10_000)]);
  if (child.exitCode === null) signal('SIGKILL');
}

/** Each server started in this run: whether it still runs, and the last lines it wrote. */
function serversSaid() {
  return [...tails]
    .map(([child, t]) => `--- ${t.file} (pid ${child.pid}, ${child.exitCode !== null || child.signalCode !== null ? `exited ${child.exitCode ?? child.signalCode}` : 'running'}):\n${t.lines.join('\n')}`)
    .join('\n');
}

export async function waitReady(url: string, timeoutMs = 180_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`server at ${url} did not start\n${serversSaid()}`);
}

/**
 * npm start registers the engine's functions just after it starts listening, and the work a bench
 * sends needs them: waits until the function whose id ends with `name` is registered.
 */
export async function functionRegistered(pool: { query(sql: string, values: unknown[]): Promise<{ rows: unknown[] }> }, name: string, timeoutMs = 60_000) {
  for (const until = Date.now() + timeoutMs; ; await sleep(100)) {
    const { rows } = await pool.query('SELECT 1 FROM executor_functions WHERE id LIKE $1', [`%${name}`]);
    if (rows.length) return;
    if (Date.now() > until) throw new Error(`the ${name} function was not registered`);
  }
}

export type Spread = { p50: number; p90: number; p99: number; n: number };

export function spread(samples: number[]): Spread {
  if (!samples.length) throw new Error('nothing to measure: no sample was taken');
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Number(s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)].toFixed(1));
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), n: s.length };
}

export type Load = { reqPerSec: number; p50Ms: number; p99Ms: number; non2xx: number };

/** autocannon against one URL with a bearer key for `seconds`. */
export async function load(url: string, key: string, seconds: number, connections = 50): Promise<Load> {
  const r = await autocannon({ url, connections, duration: seconds, headers: { Authorization: `Bearer ${key}` } });
  return { reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx };
}

/** Rounds of equal length: req/s and p50 are their mean, p99 the worst round's. */
export function combine(rounds: Load[]): Load {
  const mean = (f: (l: Load) => number) => rounds.reduce((a, l) => a + f(l), 0) / rounds.length;
  return { reqPerSec: Math.round(mean((l) => l.reqPerSec)), p50Ms: Number(mean((l) => l.p50Ms).toFixed(1)), p99Ms: Math.max(...rounds.map((l) => l.p99Ms)), non2xx: rounds.reduce((a, l) => a + l.non2xx, 0) };
}

function isEsbuildService(pid: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.some((a) => /esbuild/.test(a)) && argv.some((a) => a.startsWith('--service'));
  } catch {
    return false;
  }
}

/** This process's own children still alive (the embedded PostgreSQL servers sections started), by /proc. */
function ownChildren(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent's pid (after the command name in parentheses).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      // tsx's esbuild service is this process's child too, and every later import needs it.
      if (ppid === process.pid && !isEsbuildService(entry)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Stops every server this run started, then every child process of its own still alive (an
 * embedded PostgreSQL a failed section could not stop): SIGINT (PostgreSQL's fast shutdown), then
 * SIGKILL after 10 s. Only this process's children, by pid: nothing of anyone else's.
 */
export async function stopEverything(): Promise<void> {
  await Promise.all([...started].map((c) => stop(c)));
  const children = ownChildren();
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // already gone
    }
  }
  const until = Date.now() + 10_000;
  while (children.some(alive) && Date.now() < until) await sleep(100);
  for (const pid of children.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** On Ctrl-C, SIGTERM or a crash: stop what was started, then leave. */
export function stopEverythingOnExit(): void {
  let leaving = false;
  const leave = (code: number) => {
    if (leaving) return;
    leaving = true;
    void stopEverything().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => leave(130));
  process.once('SIGTERM', () => leave(143));
  process.once('uncaughtException', (e) => {
    console.error(e);
    leave(1);
  });
  process.once('unhandledRejection', (e) => {
    console.error(e);
    leave(1);
  });
}
