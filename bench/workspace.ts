/**
 * The workspace section of `npm run bench` (issue 17, Performance), written under `workspace`
 * in bench/results.json. Everything runs in this process: the workspace manager drives real
 * Chromium (Debian's, or STEWARD_CHROMIUM_PATH) exactly as the agent tools do, and the watch
 * figure goes through the production request path (the lean node:http kernel, a throwaway
 * PostgreSQL) to GET /api/workspace/watch. Each figure has a baseline measured in the same run:
 *
 * - `coldStartMs`: a user's browser from nothing running to the first page ready (launch with
 *   the user's profile, the task's tab, a loopback page loaded through the egress proxy),
 *   each run a user whose browser is stopped; baseline: a bare playwright-core launch (no
 *   profile, no proxy) to the same page ready. Target p50 ≤ 2000 ms.
 * - `watchMs`: GET /api/workspace/watch?taskId= on a task with an open tab (request sent →
 *   whole JSON frame received); baseline: Playwright's page.screenshot() of the same tab
 *   in-process, with no HTTP, no database and no base64. Target p50 ≤ 150 ms.
 * - `rssPerBrowserMb`: 10 users' idle browsers (one blank tab each, after they settle), the
 *   memory of each one's process tree read from /proc (PSS, and plain RSS beside it), total and
 *   per browser; baseline: one bare playwright-core browser with one blank page, running alone.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { connect } from '../db/client';
import { startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { credentials } from '../server/credentials';
import { endpoints } from '../server/endpoints';
import { createApiCore } from '../server/http/kernel';
import { createKernelDeps } from '../server/http/kernel-deps';
import { createNodeServer } from '../server/http/node-server';
import { workspaceConfig } from '../server/workspace/browser/config';
import { stopAllWorkspaces, workspaceFor } from '../server/workspace/browser/manager';
import { findBrowserPid, treeUsage } from '../server/workspace/browser/process-tree';
import { sleep, spread } from './processes';

const COLD_RUNS = Number(process.env.BENCH_WORKSPACE_COLD_RUNS ?? 10);
const WATCH_RUNS = Number(process.env.BENCH_WORKSPACE_WATCH_RUNS ?? 60);
const IDLE_USERS = 10;
const MB = 1024 * 1024;

/** A page on loopback for the browsers to load. */
async function site() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>bench</title><h1>Ready</h1><p>' + 'text '.repeat(200) + '</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `bench${String(i).padStart(19, '0')}`);

async function coldStart(url: string) {
  const steward: number[] = [];
  const bare: number[] = [];
  // One warm-up of each (the first Chromium start of a machine reads the binary from disk).
  for (const [i, accountId] of ['warmup', ...ids(COLD_RUNS)].entries()) {
    let t = performance.now();
    const ws = (await workspaceFor(accountId, 'coldstart', { start: true }))!;
    const page = await ws.pageForTask('task');
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    if (i > 0) steward.push(performance.now() - t);
    await ws.stop();

    t = performance.now();
    const browser = await chromium.launch({ executablePath: workspaceConfig().chromiumPath, headless: true });
    const p = await browser.newPage();
    await p.goto(url, { waitUntil: 'domcontentloaded' });
    if (i > 0) bare.push(performance.now() - t);
    await browser.close();
  }
  return { ...spread(steward), baseline: spread(bare), target: 2000, met: spread(steward).p50 <= 2000 };
}

async function watch(url: string) {
  const pg = await startThrowawayDatabase('workspace_bench');
  const database = connect(pg.url, { max: 4 });
  const kernel = createKernelDeps(database, credentials);
  const server = createNodeServer(createApiCore(endpoints, kernel), {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  try {
    const { apiKey, accountId } = await createAccount(database.db, 'Workspace bench');
    const api = async (p: string, opts: { method?: string; body?: unknown; as?: string } = {}) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
      if (opts.as) headers['X-User-Email'] = opts.as;
      const res = await fetch(base + p, { method: opts.method ?? (opts.body ? 'POST' : 'GET'), headers, body: opts.body ? JSON.stringify(opts.body) : undefined });
      const body = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    };
    const email = 'watch-bench@example.com';
    const { user } = await api('/users/provision', { body: { email } });
    await api('/profile', { method: 'PATCH', as: email, body: { timezone: 'Europe/Paris' } });
    await api(`/users/${user.id}/preferences/scheduling`, {
      method: 'PUT',
      as: email,
      body: { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } },
    });
    await api('/onboarding/mark-onboarded', { as: email, body: {} });
    const { assistant } = await api(`/users/${user.id}/assistants`, { as: email, body: { name: 'Ada' } });
    const { task } = await api('/tasks', { as: email, body: { title: 'Watch me', assistant: assistant.id } });

    const ws = (await workspaceFor(accountId, user.id, { start: true, db: database.db }))!;
    const page = await ws.pageForTask(task.id);
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    const steward: number[] = [];
    const bare: number[] = [];
    let size = '';
    for (let i = 0; i < WATCH_RUNS + 5; i++) {
      let t = performance.now();
      const frame = await api(`/workspace/watch?taskId=${task.id}`, { as: email });
      if (!frame.available) throw new Error('watch frame unavailable');
      if (i >= 5) steward.push(performance.now() - t);
      size = `${frame.width}x${frame.height}`;
      t = performance.now();
      await page.screenshot({ type: 'png' });
      if (i >= 5) bare.push(performance.now() - t);
    }
    await ws.stop();
    return { ...spread(steward), frame: size, baseline: { ...spread(bare), what: 'page.screenshot() in-process' }, target: 150, met: spread(steward).p50 <= 150 };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await database.close();
    await pg.stop();
  }
}

async function idleRss() {
  const started = [];
  for (const userId of ids(IDLE_USERS)) {
    const ws = (await workspaceFor('idle', userId, { start: true }))!;
    await ws.pageForTask(null);
    started.push(ws);
  }
  await sleep(5000);
  // Read while all ten run: PSS splits the pages they share (the Chromium binary) among them.
  const each = await Promise.all(started.map(async (ws) => (ws.pid ? await treeUsage(ws.pid) : null)));
  await stopAllWorkspaces();

  const bareDir = mkdtempSync(path.join(os.tmpdir(), 'steward-ws-bare-'));
  const bare = await chromium.launchPersistentContext(bareDir, { executablePath: workspaceConfig().chromiumPath, headless: true });
  if (!bare.pages().length) await bare.newPage();
  await sleep(5000);
  const pid = await findBrowserPid(bareDir);
  const alone = pid ? await treeUsage(pid) : null;
  await bare.close();
  rmSync(bareDir, { recursive: true, force: true });

  const sum = (f: (u: NonNullable<(typeof each)[number]>) => number) => each.reduce((a, u) => a + (u ? f(u) : 0), 0) / MB;
  const rss = sum((u) => u.rssBytes);
  const pss = sum((u) => u.pssBytes ?? u.rssBytes);
  return {
    browsers: IDLE_USERS,
    totalMb: Math.round(pss),
    perBrowserMb: Math.round(pss / IDLE_USERS),
    rss: { totalMb: Math.round(rss), perBrowserMb: Math.round(rss / IDLE_USERS) },
    baseline: {
      perBrowserMb: Math.round((alone?.pssBytes ?? alone?.rssBytes ?? 0) / MB),
      rssMb: Math.round((alone?.rssBytes ?? 0) / MB),
      what: 'one bare playwright-core browser running alone (own profile, no proxy or preferences), one blank page',
    },
    note: 'totalMb/perBrowserMb: PSS of each browser’s process tree (/proc/<pid>/smaps_rollup), which splits shared pages among the processes mapping them, so the ten add up to what they really take; rss: resident sets summed, shared pages counted once per process',
  };
}

export async function bench() {
  const saved = { dir: process.env.STEWARD_WORKSPACE_DIR, allow: process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'steward-ws-bench-'));
  process.env.STEWARD_WORKSPACE_DIR = dir;
  process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = '127.0.0.1/32';
  const page = await site();
  try {
    const coldStartMs = await coldStart(page.url);
    const watchMs = await watch(page.url);
    const rssPerBrowserMb = await idleRss();
    return { coldStartMs, watchMs, rssPerBrowserMb };
  } finally {
    await stopAllWorkspaces();
    await page.close();
    rmSync(dir, { recursive: true, force: true });
    if (saved.dir === undefined) delete process.env.STEWARD_WORKSPACE_DIR;
    else process.env.STEWARD_WORKSPACE_DIR = saved.dir;
    if (saved.allow === undefined) delete process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE;
    else process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = saved.allow;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  bench()
    .then((r) => {
      process.stdout.write(JSON.stringify(r, null, 2) + '\n');
      process.exit(0);
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
