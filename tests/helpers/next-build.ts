import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** As scripts/start.ts decides: a build is needed when there is none or a source is newer than it. */
function buildIsStale(): boolean {
  const id = path.join(root, '.next', 'BUILD_ID');
  if (!existsSync(id)) return true;
  const built = statSync(id).mtimeMs;
  const newer = (p: string): boolean => {
    const s = statSync(p);
    return s.isDirectory() ? readdirSync(p).some((n) => newer(path.join(p, n))) : s.mtimeMs > built;
  };
  return ['app', 'server', 'db', 'next.config.ts', 'package.json'].some((p) => existsSync(path.join(root, p)) && newer(path.join(root, p)));
}

/**
 * Runs `next build` when the production build is missing or stale, before a test starts the
 * production server with pages (the server would build too, but within the start helper's
 * timeout a build on a small machine does not fit). Give the calling hook minutes.
 */
export function ensureNextBuild(): void {
  if (!buildIsStale()) return;
  const build = spawnSync('npx', ['next', 'build'], { cwd: root, encoding: 'utf8', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  process.stdout.write(build.stdout ?? '');
  process.stderr.write(build.stderr ?? '');
  if (build.status === 0) return;
  // Two test files of one run can need the build at once: the second waits for the first's.
  if (/Another next build process is already running/.test(`${build.stdout}${build.stderr}`)) {
    const until = Date.now() + 15 * 60_000;
    while (Date.now() < until) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2_000);
      if (!buildIsStale() && !existsSync(path.join(root, '.next', 'lock'))) return;
    }
  }
  throw new Error('next build failed: the production server cannot start with pages');
}
