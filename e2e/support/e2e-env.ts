import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Where one e2e run keeps its things, shared between Playwright's runner and its workers through
 * the environment (workers inherit it): the app's URL on a port that was free when the run
 * started, and a temporary folder for captured mail and DNS records.
 */

/** A free loopback port, found synchronously (the config is evaluated before any async setup runs). */
function freePortNow(): number {
  const script = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

/** The app's base URL: E2E_BASE_URL, else chosen once by the runner and inherited by its workers. */
export function e2eBaseUrl(): string {
  process.env.E2E_BASE_URL ??= `http://127.0.0.1:${freePortNow()}`;
  return process.env.E2E_BASE_URL;
}

/** The run's temporary folder (made by global setup). */
function runDir(): string {
  const dir = process.env.E2E_RUN_DIR;
  if (!dir) throw new Error('E2E_RUN_DIR is not set: run the browser tests through playwright (global setup makes it)');
  return dir;
}

/** Where the loopback SMTP server writes captured mail. */
export const mailDir = () => path.join(runDir(), 'mail');
/** The TXT records the loopback DNS server answers with. */
export const dnsFile = () => path.join(runDir(), 'dns.json');
