import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskActivities } from '@/db/schema';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { workspaceDirs } from '@/server/workspace/browser/launch';
import { stopAllSandboxes } from '@/server/workspace/shell/manager';
import { call, newAccount, type AccountFixture } from '../helpers/client';
import type { ModelRequest, ScriptedModel } from '../helpers/scripted-model';
import { useRunHarness } from '../agent/run-harness';

/*
 * The workspace sandbox under attack (issue 40, "not yet tried"), through the real egress proxy and
 * a real bubblewrap sandbox: every spelling of loopback a URL parser or resolver accepts (IPv4-mapped
 * IPv6, 127.1, 0, decimal, octal and hex, ::1, localhost), CONNECT to loopback, and a redirect from
 * an allowed host to loopback and to the metadata address are refused, and the loopback canary
 * hears nothing; symlinks and `..` in file_write, file_delete and save_to_files reach nothing outside
 * the home; a NUL byte in a command's output is stored and the task still completes. (Fork bombs
 * and disk exhaustion: tests/workspace/shell.int.test.ts.)
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'steward-sandbox-sec-'));
chmodSync(root, 0o711);
process.env.STEWARD_WORKSPACE_DIR = path.join(root, 'workspaces');
process.env.STEWARD_SHELL_COMMAND_SECONDS = '8';
// One loopback address is allowed (the redirecting site lives there); the canary's is not.
process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = '127.0.0.2/32';
const OUTSIDE = path.join(root, 'outside-secret.txt');
writeFileSync(OUTSIDE, 'outside-canary-3b7e', { mode: 0o644 });
process.env.STEWARD_SHELL_TEST_CANARY = 'server-env-canary-5d1a';

const h = useRunHarness();
const { app, person, startTask, taskRow, ended } = h;
let llm: ScriptedModel;
let acct: AccountFixture;
let canary: Server;
let canaryHits = 0;
let redirector: Server;
let redirectorHits = 0;
let canaryPort = 0;
let redirectorPort = 0;

beforeAll(async () => {
  llm = h.state.llm;
  acct = await newAccount(app());
  useFileStorage(localStorage(path.join(root, 'files')));
  canary = createServer((_req, res) => {
    canaryHits++;
    res.end('canary-reached');
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', () => r()));
  canaryPort = (canary.address() as AddressInfo).port;
  redirector = createServer((req, res) => {
    redirectorHits++;
    const to = req.url === '/to-metadata' ? 'http://169.254.169.254/latest/meta-data/' : `http://127.0.0.1:${canaryPort}/secret`;
    res.writeHead(302, { location: to });
    res.end();
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.2', () => r()));
  redirectorPort = (redirector.address() as AddressInfo).port;
});
afterAll(async () => {
  await stopAllSandboxes();
  await new Promise<void>((r) => canary.close(() => r()));
  await new Promise<void>((r) => redirector.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

function toolResult(requests: ModelRequest[], name: string, n = 0): any {
  const last = requests.at(-1)!.messages;
  const calls = last.filter((m: any) => m.role === 'assistant' && m.tool_calls).flatMap((m: any) => m.tool_calls);
  const id = calls.filter((c: any) => c.function.name === name)[n]?.id;
  const result = last.find((m: any) => m.role === 'tool' && m.tool_call_id === id);
  if (!result) throw new Error(`no result for ${name} #${n}`);
  return JSON.parse((result.content as string).split('\n').slice(1, -1).join('\n'));
}
const call1 = (name: string, args: unknown = {}) => ({ toolCalls: [{ name, arguments: args }] });
const sh = (command: string) => call1('shell_run', { command });

async function runScript(p: Awaited<ReturnType<typeof person>>, ...calls: ReturnType<typeof call1>[]) {
  llm.reset();
  llm.enqueue(...calls, call1('complete_task', { summary: 'done' }));
  const { taskId, runId } = await startTask(p);
  const run = await ended(runId);
  expect(run.status, JSON.stringify(run)).toBe('finished');
  return taskId;
}

describe('the egress proxy from the shell', () => {
  it('refuses every spelling of loopback, CONNECT to loopback, and redirects from an allowed host to loopback or metadata; the canary hears nothing', async () => {
    const p = await person(acct);
    const P = canaryPort;
    const spellings = [
      `http://[::ffff:127.0.0.1]:${P}/`,
      `http://[::ffff:7f00:1]:${P}/`,
      `http://127.1:${P}/`,
      `http://0:${P}/`,
      `http://0.0.0.0:${P}/`,
      `http://2130706433:${P}/`,
      `http://0177.0.0.1:${P}/`,
      `http://0x7f.0.0.1:${P}/`,
      `http://0x7f000001:${P}/`,
      `http://[::1]:${P}/`,
      `http://localhost:${P}/`,
      `http://LOCALHOST.:${P}/`,
      `http://ip6-localhost:${P}/`,
    ];
    const probes = [
      // Through the proxy the sandbox's environment names (curl reads http_proxy).
      `for u in ${spellings.map((s) => `'${s}'`).join(' ')}; do echo "== $u"; curl -sS -m 5 "$u" 2>&1; echo; done`,
      // CONNECT: a tunnel asked for loopback, by address and by name.
      `for t in 127.0.0.1 127.1 0 localhost '[::ffff:127.0.0.1]'; do echo "== $t"; curl -sS -m 5 -p "http://$t:${P}/" 2>&1; echo " exit $?"; done`,
      // Redirects: the first hop is allowed (127.0.0.2), the next is not.
      `curl -sS -m 5 -L http://127.0.0.2:${redirectorPort}/to-loopback 2>&1; echo; curl -sS -m 5 -L http://127.0.0.2:${redirectorPort}/to-metadata 2>&1`,
    ];
    await runScript(p, ...probes.map((c) => sh(c)));
    const [plain, tunnels, redirects] = probes.map((_, i) => toolResult(llm.requests, 'shell_run', i));
    const blocks = (text: string) => text.split('\n== ').filter(Boolean);
    for (const chunk of blocks(plain.stdout)) expect(chunk, chunk).toMatch(/Blocked by the Steward workspace/);
    expect(blocks(plain.stdout)).toHaveLength(spellings.length);
    for (const chunk of blocks(tunnels.stdout)) expect(chunk, chunk).toMatch(/CONNECT|403|Received HTTP code 403|Blocked/i);
    expect(tunnels.stdout).not.toContain('canary-reached');
    expect(redirects.stdout).toContain('Blocked by the Steward workspace: 127.0.0.1');
    expect(redirects.stdout).toContain('cloud metadata');
    expect(redirectorHits).toBeGreaterThanOrEqual(2);
    expect(canaryHits).toBe(0);
  });
});

describe('file tools and links', () => {
  it('symlinks and `..` in file_write, file_delete and save_to_files reach nothing outside the home', async () => {
    const p = await person(acct);
    const home = workspaceDirs(acct.accountId, p.id).home;
    await runScript(
      p,
      sh(`ln -s / rootlink && ln -s ${OUTSIDE} outside && ln -s /proc/self/environ env && ln -s ../../.. up && ls -l`),
      call1('file_write', { path: 'rootlink/etc/steward-owned', content: 'x' }),
      call1('file_write', { path: '../../../../tmp/escaped.txt', content: 'x' }),
      call1('file_write', { path: '/etc/passwd', content: 'x' }),
      call1('file_write', { path: 'up/escaped.txt', content: 'x' }),
      call1('save_to_files', { path: 'outside' }),
      call1('save_to_files', { path: 'env' }),
      call1('save_to_files', { path: '../../etc/shadow' }),
      call1('file_delete', { path: 'rootlink/usr' }),
      call1('file_delete', { path: '..' }),
      call1('file_write', { path: 'outside', content: 'replaced' }),
    );
    const write = (n: number) => toolResult(llm.requests, 'file_write', n);
    const save = (n: number) => toolResult(llm.requests, 'save_to_files', n);
    const OUT = /leads outside the home directory/;
    expect(write(0).error).toMatch(OUT);
    expect(write(1).error).toContain('not a file path inside the home directory');
    // An absolute path must lie in the home: the system's /etc/passwd is not one.
    expect(write(2).error).toContain('not a file path inside the home directory');
    expect(write(3).error).toMatch(OUT);
    // A link to a host file (absent inside the sandbox anyway) and one to the sandbox's own environment: neither is read.
    expect(save(0).error).toMatch(OUT);
    expect(save(1).error).toMatch(OUT);
    expect(save(2).error).toContain('not a file path inside the home directory');
    expect(toolResult(llm.requests, 'file_delete', 0).error).toMatch(OUT);
    expect(toolResult(llm.requests, 'file_delete', 1).error).toContain('not a file path inside the home directory');
    // Writing over a link replaces the link in the home, never what it pointed at.
    expect(write(4)).toMatchObject({ written: true });
    expect(readFileSync(OUTSIDE, 'utf8')).toBe('outside-canary-3b7e');
    expect(existsSync('/etc/steward-owned')).toBe(false);
    expect(existsSync('/tmp/escaped.txt')).toBe(false);
    expect(existsSync(path.join(path.dirname(path.dirname(path.dirname(home))), 'escaped.txt'))).toBe(false);
    expect(existsSync('/usr/bin/env')).toBe(true);
  });
});

describe('a NUL byte in a command’s output', () => {
  it('is stored with U+FFFD and the task completes (issue 40: a shell_run of /proc/*/cmdline)', async () => {
    const p = await person(acct);
    const taskId = await runScript(p, sh(`printf 'a\\0b\\n'; cat /proc/self/cmdline; echo`));
    expect((await taskRow(taskId)).status).toBe('completed');
    const [row] = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.toolName, 'shell_run')));
    expect(JSON.stringify(row!.toolOutput)).toContain('a\ufffdb');
    expect((await call(app(), `/tasks/${taskId}`, { key: p.key })).body.task.status).toBe('completed');
  });
});
