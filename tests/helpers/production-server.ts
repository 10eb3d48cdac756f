import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '@/db/embedded';
import type { Database } from '@/db/client';
import type { TestServer } from './server';

const root = path.resolve(import.meta.dirname, '../..');

/** Variables of the test process that must not reach a server: it finds its own keys and executor. */
const NOT_INHERITED = [
  'INNGEST_BASE_URL',
  'INNGEST_SIGNING_KEY',
  'INNGEST_EVENT_KEY',
  'STEWARD_EXECUTOR_URL',
  'STEWARD_EXECUTOR_PORT',
  'STEWARD_INNGEST_SERVE_URL',
  'STEWARD_MODEL_API_KEY',
  'STEWARD_MODEL_LOW',
  'STEWARD_MODEL_MEDIUM',
  'STEWARD_MODEL_HIGH',
  'STEWARD_MODEL_ULTRA',
];

export type ProductionServer = TestServer & {
  port: number;
  child: ChildProcess;
  /** What the process printed so far (for failure messages). */
  output: () => string;
  /** Sends the signal to the whole process group and waits for the exit. */
  kill: (signal?: NodeJS.Signals) => Promise<void>;
};

/**
 * `npm start`'s entry point (scripts/start.ts, the API alone with STEWARD_PAGES=off: its kernel,
 * built-in executor and /api/inngest in one process) as a child in its own process group, on the
 * given database. Resolves once it printed that it runs (functions registered).
 */
export async function startProductionServer(database: { url: string; database: Database }, env: Record<string, string> = {}, port?: number): Promise<ProductionServer> {
  const p = port ?? (await freePort());
  const full: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: String(p),
    HOST: '127.0.0.1',
    STEWARD_PAGES: 'off',
    STEWARD_PUBLIC_URL: `http://127.0.0.1:${p}`,
    LOG_LEVEL: 'warn',
    NEXT_TELEMETRY_DISABLED: '1',
  };
  for (const n of NOT_INHERITED) delete full[n];
  Object.assign(full, env);
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: root, env: full, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 120 s:\n${output.slice(-4000)}`)), 120_000);
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('Steward is running at')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d: Buffer) => void (output += d.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before it was ready:\n${output.slice(-4000)}`));
    });
  });
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is already gone
    }
    await exited;
  };
  return {
    baseUrl: `http://127.0.0.1:${p}/api`,
    database: database.database,
    port: p,
    child,
    output: () => output,
    kill,
  } as ProductionServer;
}
