import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { startTxtServer } from '../tests/helpers/dns';
import { startMailCaptureToDir } from './support/mail-capture';
import { startTestIdp } from './support/test-idp';

const root = path.resolve(import.meta.dirname, '..');
export const STATE_FILE = path.join(os.tmpdir(), 'steward-e2e-state.json');
/** Where the loopback SMTP server writes captured mail and the loopback DNS server reads TXT records. */
export const MAIL_DIR = path.join(os.tmpdir(), 'steward-e2e-mail');
export const DNS_FILE = path.join(os.tmpdir(), 'steward-e2e-dns.json');

function txtRecords(name: string): string[] {
  try {
    return (JSON.parse(readFileSync(DNS_FILE, 'utf8')) as Record<string, string[]>)[name] ?? [];
  } catch {
    return [];
  }
}

/**
 * A throwaway PostgreSQL, one account, loopback SMTP, DNS and SAML IdP servers, and the
 * production server (`scripts/start.ts`) on port 3199 wired to them.
 */
export default async function globalSetup() {
  rmSync(MAIL_DIR, { recursive: true, force: true });
  writeFileSync(DNS_FILE, '{}');
  const mail = await startMailCaptureToDir(MAIL_DIR);
  const dns = await startTxtServer(txtRecords);
  const idp = await startTestIdp();
  const server = await startThrowawayDatabase('e2e');
  const { url } = server;
  const database = connect(url);
  const { accountId, apiKey } = await createAccount(database.db, 'E2E');
  await database.close();

  const app = spawn('npx', ['tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, PORT: '3199', HOST: '127.0.0.1', LOG_LEVEL: 'warn', NEXT_TELEMETRY_DISABLED: '1', SMTP_URL: mail.url, DNS_SERVERS: dns.address },
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
  process.env.E2E_IDP_URL = idp.url;
  writeFileSync(STATE_FILE, JSON.stringify({ appPid: app.pid }));
  (globalThis as { __stewardPg?: typeof server }).__stewardPg = server;
  (globalThis as { __stewardLoopback?: Array<() => Promise<unknown>> }).__stewardLoopback = [mail.close, async () => dns.close(), idp.close];
}
