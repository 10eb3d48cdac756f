import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';

const root = path.resolve(import.meta.dirname, '..');
export const STATE_FILE = path.join(os.tmpdir(), 'steward-e2e-state.json');

/** A throwaway PostgreSQL, one account, and the production server (`scripts/start.ts`) on port 3199. */
export default async function globalSetup() {
  const server = await startThrowawayDatabase('e2e');
  const { url } = server;
  const database = connect(url);
  const { accountId, apiKey } = await createAccount(database.db, 'E2E');
  await database.close();

  const app = spawn('npx', ['tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, PORT: '3199', HOST: '127.0.0.1', LOG_LEVEL: 'warn', NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  const until = Date.now() + 300_000;
  for (;;) {
    try {
      if ((await fetch('http://127.0.0.1:3199/api/openapi.json')).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > until || app.exitCode !== null) throw new Error('the app did not start');
    await new Promise((r) => setTimeout(r, 500));
  }
  process.env.E2E_ACCOUNT_ID = accountId;
  process.env.E2E_API_KEY = apiKey;
  writeFileSync(STATE_FILE, JSON.stringify({ appPid: app.pid }));
  (globalThis as { __stewardPg?: typeof server }).__stewardPg = server;
}
