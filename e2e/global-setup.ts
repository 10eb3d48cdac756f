import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { startTxtServer } from '../tests/helpers/dns';
import { dnsFile, e2eBaseUrl, mailDir } from './support/e2e-env';
import { startMailCaptureToDir } from './support/mail-capture';
import { startE2eModel } from './support/model-script';
import { startAudioFake } from '../tests/helpers/audio-fake';
import { startRealtimeFake } from '../tests/helpers/realtime-fake';
import { startTestIdp } from './support/test-idp';

const root = path.resolve(import.meta.dirname, '..');

function txtRecords(name: string): string[] {
  try {
    return (JSON.parse(readFileSync(dnsFile(), 'utf8')) as Record<string, string[]>)[name] ?? [];
  } catch {
    return [];
  }
}

/** What global teardown stops, kept in this (the runner's) process. */
export type E2eRun = { appPid?: number; runDir: string; closers: Array<() => Promise<unknown>> };
export const runState = globalThis as { __stewardE2e?: E2eRun };

/**
 * A throwaway PostgreSQL, one account, loopback SMTP, DNS and SAML IdP servers, a scripted
 * model (support/model-script.ts), and the production server (`scripts/start.ts`) on the run's
 * free port, its public URL set to it.
 * Captured mail and DNS records live in a temporary folder of this run.
 */
export default async function globalSetup() {
  const base = new URL(e2eBaseUrl());
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'steward-e2e-run-'));
  process.env.E2E_RUN_DIR = runDir;
  const run: E2eRun = { runDir, closers: [] };
  runState.__stewardE2e = run;
  writeFileSync(dnsFile(), '{}');
  const mail = await startMailCaptureToDir(mailDir());
  run.closers.push(mail.close);
  const dns = await startTxtServer(txtRecords);
  run.closers.push(async () => dns.close());
  const idp = await startTestIdp();
  run.closers.push(idp.close);
  // Task runs (e2e/approvals.spec.ts) talk to a scripted model on loopback; the specs steer it through task messages.
  const model = await startE2eModel();
  run.closers.push(model.close);
  // Live voice (e2e/hosted-app-voice.spec.ts): the OpenAI audio API on loopback; specs queue its transcripts over HTTP.
  const audio = await startAudioFake();
  run.closers.push(audio.close);
  process.env.E2E_AUDIO_URL = audio.origin;
  // Live voice (e2e/hosted-app-live-voice.spec.ts): the realtime speech model on loopback; specs script it over HTTP.
  const realtime = await startRealtimeFake();
  run.closers.push(realtime.close);
  process.env.E2E_REALTIME_URL = realtime.controlUrl;
  const server = await startThrowawayDatabase('e2e');
  run.closers.push(server.stop);
  const { url } = server;
  const database = connect(url);
  const { accountId, apiKey } = await createAccount(database.db, 'Larkspur');
  await database.close();

  const app = spawn('npx', ['tsx', 'scripts/start.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: base.port,
      HOST: base.hostname,
      STEWARD_PUBLIC_URL: base.origin,
      LOG_LEVEL: 'warn',
      NEXT_TELEMETRY_DISABLED: '1',
      SMTP_URL: mail.url,
      DNS_SERVERS: dns.address,
      STEWARD_MODEL_BASE_URL: model.baseUrl,
      STEWARD_MODEL_MEDIUM: 'scripted-e2e',
      ...audio.env(),
      ...realtime.env(),
      // The handoff spec's sign-in site listens on loopback (e2e/handoff.spec.ts).
      STEWARD_WORKSPACE_ALLOW_PRIVATE: '127.0.0.1/32',
      // The console spec's webhook receiver listens on loopback (e2e/console-changes.spec.ts).
      STEWARD_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
      STEWARD_WORKSPACE_DIR: path.join(runDir, 'workspaces'),
      // Every spec signs in from one address (loopback): more than an office's 30 in 15 minutes.
      STEWARD_SIGN_IN_PER_IP: '500',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  run.appPid = app.pid;
  const until = Date.now() + 300_000;
  for (;;) {
    try {
      if ((await fetch(`${base.origin}/api/openapi.json`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > until || app.exitCode !== null) throw new Error('the app did not start');
    await new Promise((r) => setTimeout(r, 500));
  }
  process.env.E2E_ACCOUNT_ID = accountId;
  process.env.E2E_API_KEY = apiKey;
  // Specs that need a console job (the admin CLI, e.g. set-approval-lock) run it against this database.
  process.env.E2E_DATABASE_URL = url;
  process.env.E2E_IDP_URL = idp.url;
}
