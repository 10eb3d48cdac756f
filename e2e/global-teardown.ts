import { rmSync } from 'node:fs';
import { runState } from './global-setup';

/** Whether any process of the group is still alive (signal 0 only asks). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export default async function globalTeardown() {
  const run = runState.__stewardE2e;
  if (!run) return;
  if (run.appPid) {
    try {
      // The app was started detached: its process group holds npx, tsx, Steward and Next.js.
      process.kill(-run.appPid, 'SIGTERM');
    } catch {
      // already gone
    }
    // PostgreSQL stops only once the server has: a server still draining would otherwise log
    // reconnect attempts against a database that is gone. A server that does not stop in
    // 10 s is killed.
    const until = Date.now() + 10_000;
    while (groupAlive(run.appPid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (groupAlive(run.appPid)) {
      try {
        process.kill(-run.appPid, 'SIGKILL');
      } catch {
        // gone between the check and the kill
      }
    }
  }
  for (const close of run.closers.reverse()) await close().catch(() => undefined);
  rmSync(run.runDir, { recursive: true, force: true });
}
