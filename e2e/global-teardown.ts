import { rmSync } from 'node:fs';
import { runState } from './global-setup';

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
    await new Promise((r) => setTimeout(r, 1500));
  }
  for (const close of run.closers.reverse()) await close().catch(() => undefined);
  rmSync(run.runDir, { recursive: true, force: true });
}
