import { mkdtempSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceSnapshots } from '@/db/schema';
import { workspaceDirs } from '@/server/workspace/browser/launch';
import { peekWorkspace, stopAllWorkspaces, workspaceFor } from '@/server/workspace/browser/manager';
import { pruneSnapshots } from '@/server/workspace/snapshots';
import { checkWorkspaceUrl } from '@/server/workspace/url-guard';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { startBrowserSite } from './browser-site';

/*
 * The workspace browser: one real Chromium per user (Debian's), its profile, the URL guard and
 * egress proxy, and the watch, profile, snapshots and cleanup endpoints. The agent's tools are
 * in browser-tools.int.test.ts. Tabs are opened here the way the tools open them (the manager
 * of this process, which also serves the test server's requests).
 */

process.env.STEWARD_WORKSPACE_DIR = mkdtempSync(path.join(os.tmpdir(), 'steward-ws-'));
process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = '127.0.0.1/32';

const app = useTestServer();
let site: Awaited<ReturnType<typeof startBrowserSite>>;
let acct: AccountFixture;
beforeAll(async () => {
  site = await startBrowserSite();
  acct = await newAccount(app());
});
afterAll(async () => {
  await stopAllWorkspaces();
  await site?.close();
});

async function person() {
  const u = await newUser(app(), acct);
  return { ...u, key: await userKey(app(), acct, u.id) };
}
type Person = Awaited<ReturnType<typeof person>>;

async function taskOf(p: Person) {
  const hired = await call(app(), `/users/${p.id}/assistants`, { key: p.key, body: { name: 'Ada' } });
  const res = await call(app(), '/tasks', { key: p.key, body: { title: 'Look something up', assistant: hired.body.assistant.id } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task.id as string;
}

/** The task's tab, opened as browser_open opens it. */
async function tab(p: Person, taskId: string | null, url: string) {
  const ws = (await workspaceFor(acct.accountId, p.id, { start: true, db: app().database.db }))!;
  const page = await ws.pageForTask(taskId);
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return page;
}

const withEnv = async <T>(name: string, value: string | undefined, fn: () => Promise<T>) => {
  const saved = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
};

describe('the URL guard', () => {
  it('opens only http, https and data URLs', async () => {
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'ftp://example.org/x', 'chrome://settings', 'about:blank']) {
      expect(await checkWorkspaceUrl(url), url).toMatchObject({ ok: false, code: 'scheme' });
    }
    expect(await checkWorkspaceUrl('data:text/html,<p>hi</p>')).toMatchObject({ ok: true });
    expect(await checkWorkspaceUrl('http://93.184.215.14/')).toMatchObject({ ok: true, addresses: ['93.184.215.14'] });
  });

  it('refuses cloud metadata addresses even inside an allowed range', async () => {
    await withEnv('STEWARD_WORKSPACE_ALLOW_PRIVATE', '127.0.0.1/32,169.254.0.0/16,fd00::/8', async () => {
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://metadata.google.internal/', 'http://[::ffff:169.254.169.254]/']) {
        expect(await checkWorkspaceUrl(url), url).toMatchObject({ ok: false, code: 'metadata' });
      }
      expect(await checkWorkspaceUrl('http://169.254.10.1/')).toMatchObject({ ok: true });
    });
  });

  it('refuses loopback and private ranges unless STEWARD_WORKSPACE_ALLOW_PRIVATE lists them, after resolving names', async () => {
    await withEnv('STEWARD_WORKSPACE_ALLOW_PRIVATE', undefined, async () => {
      for (const url of [`${site.origin}/article`, 'http://localhost/', 'http://10.1.2.3/', 'http://192.168.1.1/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/']) {
        expect(await checkWorkspaceUrl(url), url).toMatchObject({ ok: false, code: 'private' });
      }
    });
    expect(await checkWorkspaceUrl(`${site.origin}/article`)).toMatchObject({ ok: true });
    // localhost resolves to 127.0.0.1 and ::1: only the allowed address is kept.
    expect(await checkWorkspaceUrl('http://localhost/')).toMatchObject({ ok: true, addresses: ['127.0.0.1'] });
    expect(await checkWorkspaceUrl('http://10.1.2.3/')).toMatchObject({ ok: false, code: 'private' });
  });
});

describe('one browser per user', () => {
  it('two users never share a profile: a cookie one user’s browser got is absent from the other’s, and kept across a restart', async () => {
    const [a, b] = [await person(), await person()];
    await tab(a, null, `${site.origin}/set-cookie?v=alice`);
    const shownToA = await tab(a, null, `${site.origin}/show-cookie`);
    expect(await shownToA.textContent('#c')).toBe('cookie:[who=alice]');
    const shownToB = await tab(b, null, `${site.origin}/show-cookie`);
    expect(await shownToB.textContent('#c')).toBe('cookie:[]');

    const [da, db] = [workspaceDirs(acct.accountId, a.id), workspaceDirs(acct.accountId, b.id)];
    expect(da.profile).not.toBe(db.profile);
    for (const dir of [da.base, da.profile, db.base, db.profile]) expect(statSync(dir).mode & 0o777, dir).toBe(0o700);

    await peekWorkspace(acct.accountId, a.id)!.stop();
    expect(peekWorkspace(acct.accountId, a.id)).toBeNull();
    const again = await tab(a, null, `${site.origin}/show-cookie`);
    expect(await again.textContent('#c')).toBe('cookie:[who=alice]');
    await peekWorkspace(acct.accountId, b.id)!.stop();
  });

  it('every request leaves through the guard: a redirect to the metadata address and loopback without the allowance are blocked', async () => {
    const p = await person();
    const page = await tab(p, null, `${site.origin}/to-metadata`);
    expect(await page.textContent('body')).toContain('Blocked by the Steward workspace');
    expect(await page.textContent('body')).toContain('169.254.169.254');

    await withEnv('STEWARD_WORKSPACE_ALLOW_PRIVATE', undefined, async () => {
      const before = site.hits.get('/never') ?? 0;
      await page.goto(`${site.origin}/never`, { waitUntil: 'domcontentloaded' });
      expect(await page.textContent('body')).toContain('loopback, private or reserved');
      expect(site.hits.get('/never') ?? 0).toBe(before);
    });
    await peekWorkspace(acct.accountId, p.id)!.stop();
  });

  it('a download lands in the user’s Downloads folder under a safe name', async () => {
    const p = await person();
    const page = await tab(p, null, `${site.origin}/downloads`);
    await page.click('#dl');
    const downloads = workspaceDirs(acct.accountId, p.id).downloads;
    let files: string[] = [];
    for (let i = 0; i < 50 && !files.some((f) => f.endsWith('report.csv')); i++) {
      await new Promise((r) => setTimeout(r, 100));
      files = await readdir(downloads);
    }
    // The site asked for ../../report.csv: the file stays inside Downloads.
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[^/]*report\.csv$/);
    expect(await readFile(path.join(downloads, files[0]!), 'utf8')).toBe('a,b\n1,2\n');
    expect(await readdir(path.dirname(downloads))).not.toContain('report.csv');
    await peekWorkspace(acct.accountId, p.id)!.stop();
  });

  it('stops after STEWARD_WORKSPACE_IDLE_MINUTES without activity', async () => {
    const p = await person();
    await withEnv('STEWARD_WORKSPACE_IDLE_MINUTES', '0.01', () => tab(p, null, 'data:text/html,<p>idle</p>'));
    expect(peekWorkspace(acct.accountId, p.id)).not.toBeNull();
    for (let i = 0; i < 40 && peekWorkspace(acct.accountId, p.id); i++) await new Promise((r) => setTimeout(r, 100));
    expect(peekWorkspace(acct.accountId, p.id)).toBeNull();
    const profile = await call(app(), '/workspace/profile', { key: p.key });
    expect(profile.body.profile).toMatchObject({ running: false });
  });
});

describe('GET /workspace/watch', () => {
  it('400 without a valid taskId; 404 for another user’s task', async () => {
    const [a, b] = [await person(), await person()];
    expect((await call(app(), '/workspace/watch', { key: a.key })).status).toBe(400);
    const bad = await call(app(), '/workspace/watch?taskId=' + encodeURIComponent('../x'), { key: a.key });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('taskId');
    const theirs = await taskOf(b);
    const other = await call(app(), `/workspace/watch?taskId=${theirs}`, { key: a.key });
    expect(other.status).toBe(404);
  });

  it('never starts the workspace: available false with watch_unavailable while nothing runs', async () => {
    const p = await person();
    const taskId = await taskOf(p);
    const res = await call(app(), `/workspace/watch?taskId=${taskId}`, { key: p.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, available: false, reason: 'watch_unavailable', taskId, pngBase64: null });
    expect(peekWorkspace(acct.accountId, p.id)).toBeNull();
    expect((await call(app(), '/workspace/profile', { key: p.key })).body).toEqual({ ok: true, profile: null });
  });

  it('a frame is a decodable PNG of the tab’s size, and sequence increases; a task without a tab is unavailable', async () => {
    const p = await person();
    const [taskId, other] = [await taskOf(p), await taskOf(p)];
    await tab(p, taskId, `${site.origin}/article`);
    const first = await call(app(), `/workspace/watch?taskId=${taskId}`, { key: p.key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ok: true, available: true, taskId });
    const png = Buffer.from(first.body.pngBase64, 'base64');
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 800]);
    expect([first.body.width, first.body.height]).toEqual([1280, 800]);
    expect(Date.parse(first.body.capturedAt)).toBeGreaterThan(Date.now() - 60_000);
    const second = await call(app(), `/workspace/watch?taskId=${taskId}`, { key: p.key });
    expect(second.body.sequence).toBeGreaterThan(first.body.sequence);

    const none = await call(app(), `/workspace/watch?taskId=${other}`, { key: p.key });
    expect(none.body).toMatchObject({ available: false, reason: 'watch_unavailable', taskId: other });
    await peekWorkspace(acct.accountId, p.id)!.stop();
  });
});

describe('profile and snapshots', () => {
  it('profile is null until the workspace has run, then holds measured numbers; a snapshot is taken while it runs', async () => {
    const [p, q] = [await person(), await person()];
    expect((await call(app(), '/workspace/profile', { key: p.key })).body).toEqual({ ok: true, profile: null });
    expect((await call(app(), '/workspace/snapshots', { key: p.key })).body).toEqual({ ok: true, snapshots: [] });
    await tab(p, null, `${site.origin}/article`);

    const res = await call(app(), '/workspace/profile', { key: p.key });
    expect(res.status).toBe(200);
    const profile = res.body.profile;
    // The limits are the sandbox's (the shell's memory limit and the home's disk quota; docs/workspace.md).
    expect(profile).toMatchObject({ running: true, memoryLimitBytes: expect.any(Number), diskQuotaBytes: expect.any(Number), topMcpSlugs: [] });
    expect(profile.peakMemoryBytes).toBeGreaterThan(20 * 1024 * 1024);
    expect(profile.avgMemoryBytes).toBeGreaterThan(20 * 1024 * 1024);
    expect(profile.currentDiskBytes).toBeGreaterThan(100_000);
    expect(profile.avgCpuLoadAvg).toBeGreaterThanOrEqual(0);
    expect(Date.parse(profile.lastActiveAt)).toBeGreaterThan(Date.now() - 60_000);

    let snaps: any[] = [];
    for (let i = 0; i < 60 && !snaps.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      snaps = (await call(app(), '/workspace/snapshots?limit=288', { key: p.key })).body.snapshots;
    }
    expect(snaps).toHaveLength(1);
    expect(snaps[0]).toMatchObject({ activeMcpSlugs: [], diskQuotaBytes: expect.any(Number), memoryTotalBytes: os.totalmem() });
    expect(snaps[0].memoryUsedBytes).toBeGreaterThan(20 * 1024 * 1024);
    expect(snaps[0].containerUptime).toBeGreaterThanOrEqual(1);
    expect(snaps[0].cpuLoadAvg).toBeGreaterThan(0);
    // Another user sees none of it.
    expect((await call(app(), '/workspace/snapshots', { key: q.key })).body.snapshots).toEqual([]);
    expect((await call(app(), '/workspace/profile', { key: q.key })).body.profile).toBeNull();
    await peekWorkspace(acct.accountId, p.id)!.stop();
  });

  it('at most one snapshot per 5 minutes, kept 30 days, newest `limit` listed oldest first', async () => {
    const p = await person();
    await tab(p, null, 'data:text/html,<p>one</p>');
    const listed = async (limit = 288) => (await call(app(), `/workspace/snapshots?limit=${limit}`, { key: p.key })).body.snapshots as any[];
    for (let i = 0; i < 60 && !(await listed()).length; i++) await new Promise((r) => setTimeout(r, 100));
    // A restart right away measures again, but keeps no second snapshot within 5 minutes.
    await peekWorkspace(acct.accountId, p.id)!.stop();
    await tab(p, null, 'data:text/html,<p>two</p>');
    await new Promise((r) => setTimeout(r, 2600));
    const now = await listed();
    expect(now).toHaveLength(1);
    await peekWorkspace(acct.accountId, p.id)!.stop();

    const day = 86_400_000;
    const row = (ageMs: number) => ({ accountId: acct.accountId, userId: p.id, takenAt: new Date(Date.now() - ageMs), memoryUsedBytes: ageMs, cpuLoadAvg: 0.5, uptimeSeconds: 60 });
    await app().database.db.insert(workspaceSnapshots).values([row(31 * day), row(10 * day), row(2 * day)]);
    const all = await listed();
    expect(all.map((x) => x.memoryUsedBytes)).toEqual([10 * day, 2 * day, now[0].memoryUsedBytes]);
    expect((await listed(2)).map((x) => x.memoryUsedBytes)).toEqual([2 * day, now[0].memoryUsedBytes]);
    expect(await pruneSnapshots(app().database.db, new Date())).toBeGreaterThanOrEqual(1);
    const left = await app().database.db.select().from(workspaceSnapshots).where(eq(workspaceSnapshots.userId, p.id));
    expect(left).toHaveLength(3);
  });

  it('limit is at most 288', async () => {
    const p = await person();
    for (const limit of ['289', '0', 'x']) {
      const res = await call(app(), `/workspace/snapshots?limit=${limit}`, { key: p.key });
      expect(res.status, limit).toBe(400);
      expect(JSON.stringify(res.body)).toContain('limit');
    }
  });
});

describe('POST /workspace/cleanup', () => {
  it('403 without an end user on the call; 400 for an unknown scope', async () => {
    const p = await person();
    const res = await call(app(), '/workspace/cleanup', { key: acct.key, body: { scope: 'cache' } });
    expect(res.status).toBe(403);
    const bad = await call(app(), '/workspace/cleanup', { key: p.key, body: { scope: 'everything' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('scope');
    expect(peekWorkspace(acct.accountId, p.id)).toBeNull();
  });

  it('cache empties the HTTP cache and temporary files, sites also the working copies; files and sign-ins stay', async () => {
    const p = await person();
    // Cleanup starts the workspace when it is not running.
    const started = await call(app(), '/workspace/cleanup', { key: p.key, as: undefined, body: {} });
    expect(started.body).toEqual({ ok: true, scope: 'cache' });
    expect(peekWorkspace(acct.accountId, p.id)).not.toBeNull();

    const d = workspaceDirs(acct.accountId, p.id);
    await mkdir(d.sites, { recursive: true });
    await writeFile(path.join(d.downloads, 'keep.txt'), 'mine');
    await writeFile(path.join(d.tmp, 'scratch.tmp'), 'temporary');
    await writeFile(path.join(d.sites, 'checkout.txt'), 'a working copy');
    await tab(p, null, `${site.origin}/set-cookie?v=kept`);
    await tab(p, null, `${site.origin}/uses-cache`);
    await tab(p, null, `${site.origin}/uses-cache`);
    expect(site.hits.get('/cached.js')).toBe(1);

    const res = await call(app(), '/workspace/cleanup', { key: p.key, body: { scope: 'cache' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, scope: 'cache' });
    await tab(p, null, `${site.origin}/uses-cache`);
    expect(site.hits.get('/cached.js')).toBe(2);
    expect((await readdir(d.tmp)).filter((n) => !n.startsWith('org.chromium.'))).toEqual([]);
    expect(await readdir(d.sites)).toEqual(['checkout.txt']);
    expect(await readFile(path.join(d.downloads, 'keep.txt'), 'utf8')).toBe('mine');

    expect((await call(app(), '/workspace/cleanup', { key: p.key, body: { scope: 'sites' } })).body).toEqual({ ok: true, scope: 'sites' });
    expect(await readdir(d.sites)).toEqual([]);
    expect(await readFile(path.join(d.downloads, 'keep.txt'), 'utf8')).toBe('mine');
    const page = await tab(p, null, `${site.origin}/show-cookie`);
    expect(await page.textContent('#c')).toBe('cookie:[who=kept]');
    await peekWorkspace(acct.accountId, p.id)!.stop();
  });
});
