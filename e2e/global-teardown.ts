import { readFileSync, rmSync } from 'node:fs';
import { STATE_FILE } from './global-setup';

export default async function globalTeardown() {
  const state = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as { appPid: number };
  try {
    process.kill(-state.appPid, 'SIGTERM');
  } catch {
    // already gone
  }
  await new Promise((r) => setTimeout(r, 1500));
  const pgServer = (globalThis as { __stewardPg?: { stop: () => Promise<void> } }).__stewardPg;
  await pgServer?.stop();
  for (const close of (globalThis as { __stewardLoopback?: Array<() => Promise<unknown>> }).__stewardLoopback ?? []) await close().catch(() => undefined);
  rmSync(STATE_FILE, { force: true });
}
