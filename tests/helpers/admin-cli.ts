import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

/** Runs `npm run --silent admin -- ...args` against a database; returns its one JSON line and exit code. */
export async function admin(databaseUrl: string, ...args: string[]): Promise<{ code: number; out: any; stdout: string }> {
  try {
    const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    });
    return { code: 0, out: JSON.parse(stdout), stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, out: JSON.parse(err.stdout), stdout: err.stdout };
  }
}
