import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskActivities, tasks } from '@/db/schema';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { workspaceDirs } from '@/server/workspace/browser/launch';
import { stopAllSandboxes } from '@/server/workspace/shell/manager';
import { peekSandbox } from '@/server/workspace/shell/registry';
import { call, newAccount, type AccountFixture } from '../helpers/client';
import type { ModelRequest, ScriptedModel } from '../helpers/scripted-model';
import { useRunHarness } from '../agent/run-harness';

/*
 * The workspace shell in real task runs: the production task-run function through the built-in
 * executor, a scripted OpenAI-compatible model, and each user's real bubblewrap sandbox. What
 * the model receives is what is asserted; what the sandbox must not reach is tried from inside.
 * Limits are lowered for the file (a 4-second command limit instead of 60, 64 processes, 40 MB
 * of disk) so that hitting them is quick; the defaults are asserted in the profile test.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'steward-shell-test-'));
// Run as root, Steward runs sandboxes as another user, who must be able to pass through (not list) the folders above the workspaces.
chmodSync(root, 0o711);
process.env.STEWARD_WORKSPACE_DIR = path.join(root, 'workspaces');
process.env.STEWARD_SHELL_COMMAND_SECONDS = '4';
process.env.STEWARD_SHELL_PROCESSES = '64';
process.env.STEWARD_SHELL_DISK_MB = '40';
delete process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE;
/** A file beside Steward's data that no sandbox may read, like the master key. */
const MASTER_KEY = path.join(root, 'master.key');
writeFileSync(MASTER_KEY, 'master-key-canary-7f3a', { mode: 0o600 });
process.env.STEWARD_SHELL_TEST_CANARY = 'server-env-canary-91c2';

const h = useRunHarness();
const { app, db, person, startTask, taskRow, ended, until } = h;
let llm: ScriptedModel;
let acct: AccountFixture;
beforeAll(async () => {
  llm = h.state.llm;
  acct = await newAccount(app());
  useFileStorage(localStorage(path.join(root, 'files')));
});
afterAll(async () => {
  await stopAllSandboxes();
  rmSync(root, { recursive: true, force: true });
});

/** The tool result the model received for the n-th call named `name`, unwrapped from its untrusted-data tags. */
function toolResult(requests: ModelRequest[], name: string, n = 0): { raw: string; value: any } {
  const last = requests.at(-1)!.messages;
  const calls = last.filter((m: any) => m.role === 'assistant' && m.tool_calls).flatMap((m: any) => m.tool_calls);
  const id = calls.filter((c: any) => c.function.name === name)[n]?.id;
  const result = last.find((m: any) => m.role === 'tool' && m.tool_call_id === id);
  if (!result) throw new Error(`no result for ${name} #${n}`);
  const raw = result.content as string;
  return { raw, value: JSON.parse(raw.split('\n').slice(1, -1).join('\n')) };
}

const call1 = (name: string, args: unknown = {}) => ({ toolCalls: [{ name, arguments: args }] });
const done = () => call1('complete_task', { summary: 'done' });
const sh = (command: string, timeoutSec?: number) => call1('shell_run', { command, ...(timeoutSec ? { timeoutSec } : {}) });

/** Runs one task whose model makes these calls, then completes. */
async function runScript(p: Awaited<ReturnType<typeof person>>, ...calls: ReturnType<typeof call1>[]) {
  llm.reset();
  llm.enqueue(...calls, done());
  const { taskId, runId } = await startTask(p);
  const run = await ended(runId);
  expect(run.status, JSON.stringify(run)).toBe('finished');
  return taskId;
}

const BROWSER_FOLDERS = ['.cache', '.config', '.pki', 'Downloads'];
const hostProcesses = () => readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;

describe('shell_run', () => {
  it('runs a command in the user’s home and returns its output to the model as untrusted data', async () => {
    const p = await person(acct);
    const taskId = await runScript(p, sh('echo hello from $(whoami) in $PWD; python3 -c "print(6*7)"; node -e "console.log(typeof fetch)"; git --version | cut -d" " -f1-2; echo oops >&2; exit 3'));
    expect(llm.requests[0].tools!.map((t: any) => t.function.name)).toEqual(expect.arrayContaining(['shell_run', 'file_write', 'file_delete', 'save_to_files', 'job_start', 'job_status']));
    const { raw, value } = toolResult(llm.requests, 'shell_run');
    expect(raw.startsWith('<untrusted-data source="tool:shell_run">')).toBe(true);
    expect(value).toMatchObject({ exitCode: 3, timedOut: false, stdout: 'hello from user in /home/user\n42\nfunction\ngit version\n', stderr: 'oops\n' });
    expect((await taskRow(taskId)).status).toBe('completed');
    const acts = await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'tool')));
    expect(acts.map((a) => a.toolName)).toEqual(['shell_run', 'complete_task']);
  });

  it('the home persists across commands and sandbox restarts; file_write and file_delete work in it', async () => {
    const p = await person(acct);
    await runScript(p, call1('file_write', { path: 'notes/todo.txt', content: 'buy milk\n' }), sh('cat ~/notes/todo.txt; echo more >> notes/todo.txt'));
    expect(toolResult(llm.requests, 'file_write').value).toEqual({ written: true, path: '/home/user/notes/todo.txt', bytes: 9 });
    expect(toolResult(llm.requests, 'shell_run').value.stdout).toBe('buy milk\n');
    await peekSandbox(acct.accountId, p.id)!.stop();
    expect(peekSandbox(acct.accountId, p.id)).toBeNull();
    await runScript(p, sh('cat notes/todo.txt'), call1('file_delete', { path: 'notes' }), sh('ls -A ~'), call1('file_delete', { path: '../..' }));
    expect(toolResult(llm.requests, 'shell_run', 0).value.stdout).toBe('buy milk\nmore\n');
    expect(toolResult(llm.requests, 'file_delete', 0).value).toEqual({ deleted: true, path: '/home/user/notes' });
    // What is left is the browser's folders, there for every home (shell/config.ts).
    expect(toolResult(llm.requests, 'shell_run', 1).value.stdout).toBe('.cache\n.config\n.pki\nDownloads\n');
    expect(toolResult(llm.requests, 'file_delete', 1).value.error).toContain('not a file path inside the home directory');
  });

  it('a command sees nothing of another user’s home, Steward’s files, the master key or the server’s environment', async () => {
    const [a, b] = [await person(acct), await person(acct)];
    await runScript(a, call1('file_write', { path: 'secret.txt', content: 'alice-secret-5521' }));
    const aliceHome = workspaceDirs(acct.accountId, a.id).home;
    expect(existsSync(path.join(aliceHome, 'secret.txt'))).toBe(true);
    const probes = [
      `ls -A /home; cat /home/*/secret.txt; cat ${aliceHome}/secret.txt; ls ${path.dirname(aliceHome)}`,
      'grep -rs alice-secret-5521 /home /tmp /run /etc /opt; echo "grep exit $?"',
      `cat ${MASTER_KEY}; ls ${root}; ls ${process.cwd()}; cat ${path.join(process.cwd(), 'package.json')}`,
      'env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; ps -eo pid,args | wc -l',
      'ls /etc; cat /etc/shadow; id; ls /sys /root /var 2>&1 | head -3',
      // The folders the browser writes in as Steward cannot be swapped for links, nor written.
      'mv ~/.cache ~/c2; rm -rf ~/Downloads; ln -s / ~/Downloads/x.part; touch ~/.pki/nssdb; ls -A ~/.config | wc -l',
    ];
    await runScript(b, ...probes.map((c) => sh(c)));
    const outputs = probes.map((_, i) => toolResult(llm.requests, 'shell_run', i).value);
    const everything = JSON.stringify(outputs);
    for (const canary of ['alice-secret-5521', 'master-key-canary-7f3a', 'server-env-canary-91c2', process.env.DATABASE_URL!, 'postgres://', '"name": "steward"']) {
      expect(everything).not.toContain(canary);
    }
    expect(outputs[0].stdout.trim()).toBe('user');
    expect(outputs[0].stderr).toContain('No such file or directory');
    // 0 would be a match; 1 is none, 2 is none with some file unreadable (the host's /etc/ssl/private, still root's).
    expect(outputs[1].stdout).toMatch(/^grep exit [12]\n$/);
    expect(outputs[2].stderr).toContain(`${MASTER_KEY}: No such file or directory`);
    expect(outputs[3].stdout).toContain('HOME=/home/user');
    // Only the sandbox's own processes are there to see: bubblewrap, the supervisor, this command's few.
    expect(Number(outputs[3].stdout.trim().split('\n').at(-1))).toBeLessThan(12);
    expect(outputs[4].stdout).toContain('uid=1000(user)');
    expect(outputs[4].stdout).not.toMatch(/\bshadow\b/);
    expect(outputs[5].stderr).toMatch(/mv: cannot move .*\.cache.*: (Device or resource busy|Read-only file system)/);
    expect(outputs[5].stderr).toMatch(/rm: cannot remove .*Downloads.*: (Device or resource busy|Read-only file system)/);
    expect(outputs[5].stderr).toMatch(/ln: failed to create symbolic link .*x\.part.*: Read-only file system/);
    expect(outputs[5].stderr).toMatch(/touch: cannot touch .*nssdb.*: Read-only file system/);
    expect(outputs[5].stdout).toBe('0\n');
    const bobHome = workspaceDirs(acct.accountId, b.id).home;
    for (const name of BROWSER_FOLDERS) expect(lstatSync(path.join(bobHome, name)).isDirectory()).toBe(true);
  });

  it('the network is the egress proxy only: loopback, private ranges and metadata are refused, with or without the proxy', async () => {
    const p = await person(acct);
    const port = new URL(app().baseUrl).port;
    const probes = [
      `curl -sS -m 5 http://127.0.0.1:${port}/api/health`,
      `curl -sS -m 5 --noproxy '*' http://127.0.0.1:${port}/api/health; echo "exit $?"`,
      'curl -sS -m 5 http://10.20.30.40/ http://192.168.1.1/',
      'curl -sS -m 5 http://169.254.169.254/latest/meta-data/',
      `python3 -c "import socket; socket.create_connection(('1.1.1.1', 80), 3)" 2>&1 | tail -1`,
    ];
    await runScript(p, ...probes.map((c) => sh(c)));
    const out = probes.map((_, i) => toolResult(llm.requests, 'shell_run', i).value);
    expect(out[0].stdout).toContain('Blocked by the Steward workspace: 127.0.0.1 is a loopback, private or reserved address');
    expect(out[1].stdout).toContain('exit 7');
    expect(out[2].stdout).toContain('Blocked by the Steward workspace: 10.20.30.40');
    expect(out[2].stdout).toContain('Blocked by the Steward workspace: 192.168.1.1');
    expect(out[3].stdout).toContain('cloud metadata');
    expect(out[4].stdout).toContain('Network is unreachable');
  });

  it('stops a command at the time limit with everything it started; the limit is at most 60 seconds', async () => {
    const p = await person(acct);
    const marker = `steward-escape-${Date.now()}`;
    const started = Date.now();
    await runScript(p, sh(`(setsid bash -c 'exec -a ${marker} sleep 300' &) ; sleep 30; echo never`, 60), call1('shell_run', { command: 'true', timeoutSec: 61 }));
    const slow = toolResult(llm.requests, 'shell_run', 0).value;
    expect(slow).toMatchObject({ timedOut: true, stdout: '' });
    expect(slow.durationMs).toBeGreaterThanOrEqual(3900);
    expect(slow.durationMs).toBeLessThan(10_000);
    expect(slow.note).toContain('Stopped after 4 s');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(toolResult(llm.requests, 'shell_run', 1).value.error).toBe('Invalid input');
    // The detached process died with the command's own PID namespace.
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(marker);
  });

  it('a fork bomb hits the process limit and the time limit; the server keeps answering', async () => {
    const p = await person(acct);
    const before = hostProcesses();
    llm.reset();
    let peak = 0;
    const watching = setInterval(() => (peak = Math.max(peak, hostProcesses())), 50);
    try {
      await runScript(p, sh('bomb() { bomb | bomb & }; bomb; sleep 10'), sh('echo alive'));
    } finally {
      clearInterval(watching);
    }
    const bomb = toolResult(llm.requests, 'shell_run', 0).value;
    expect(bomb.timedOut).toBe(true);
    expect(bomb.stderr).toMatch(/fork: (retry: )?Resource temporarily unavailable|Cannot fork/);
    expect(peak - before).toBeLessThan(200);
    expect(toolResult(llm.requests, 'shell_run', 1).value.stdout).toBe('alive\n');
    expect((await call(app(), '/health')).status).toBe(200);
  });

  it('memory is held to the limit, and without a cgroup the rlimits alone hold memory and a fork bomb', async () => {
    const hog = sh(`python3 -c "b = b'x' * (600 * 1024 * 1024); print('allocated')"; echo "exit $?"`);
    const saved = { memory: process.env.STEWARD_SHELL_MEMORY_MB, cgroup: process.env.STEWARD_SHELL_CGROUP };
    process.env.STEWARD_SHELL_MEMORY_MB = '300';
    try {
      const withCgroup = await person(acct);
      await runScript(withCgroup, hog);
      const held = toolResult(llm.requests, 'shell_run').value;
      expect(held.stdout).not.toContain('allocated');
      expect(held.stdout).toMatch(/exit (1|137)\n/);
      process.env.STEWARD_SHELL_CGROUP = 'off';
      const without = await person(acct);
      await runScript(without, hog, sh('bomb() { bomb | bomb & }; bomb; sleep 10'), sh('echo alive'));
      expect(peekSandbox(acct.accountId, without.id)!.cgroup).toBeNull();
      const limited = toolResult(llm.requests, 'shell_run', 0).value;
      expect(limited.stderr).toContain('MemoryError');
      expect(limited.stdout).not.toContain('allocated');
      expect(toolResult(llm.requests, 'shell_run', 1).value.stderr).toMatch(/fork: (retry: )?Resource temporarily unavailable|Cannot fork/);
      expect(toolResult(llm.requests, 'shell_run', 2).value.stdout).toBe('alive\n');
    } finally {
      for (const [k, v] of [['STEWARD_SHELL_MEMORY_MB', saved.memory], ['STEWARD_SHELL_CGROUP', saved.cgroup]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('a disk filler is stopped at the quota; writes are refused until files are deleted', async () => {
    const p = await person(acct);
    await runScript(
      p,
      sh('head -c 100M /dev/zero > big.bin; echo "exit $?"; stat -c %s big.bin'),
      call1('file_delete', { path: 'big.bin' }),
      sh('mkdir -p fill && i=0 && while true; do i=$((i+1)); head -c 1M /dev/zero > fill/$i || break; done; echo finished'),
      sh('echo refused'),
      call1('file_write', { path: 'x.txt', content: 'x' }),
      call1('file_delete', { path: 'fill' }),
      sh('echo back'),
    );
    const single = toolResult(llm.requests, 'shell_run', 0).value;
    // The file size limit stops it and the shell says so, unless under load the quota watcher's measurement came first.
    expect(`${single.stderr}\n${single.note ?? ''}`).toMatch(/File size limit exceeded|Stopped: the workspace reached its disk quota/);
    if (single.stdout.includes('exit')) {
      // The file size limit stopped head, and the script went on to measure what stayed.
      expect(Number(single.stdout.trim().split('\n').at(-1))).toBeLessThanOrEqual(40 * 1024 * 1024);
    } else {
      // The quota watcher stopped the whole command before it could measure.
      expect(single.note).toContain('Stopped: the workspace reached its disk quota');
    }
    const filler = toolResult(llm.requests, 'shell_run', 1).value;
    const refusedAt = toolResult(llm.requests, 'file_write', 0).value.details.usedBytes as number;
    expect(filler.stdout).not.toContain('finished');
    expect(filler.note).toContain('Stopped: the workspace reached its disk quota');
    expect(toolResult(llm.requests, 'shell_run', 2).value.error).toContain('disk');
    expect(refusedAt).toBeGreaterThanOrEqual(40 * 1024 * 1024);
    // Overshoot: what the filler wrote within one measuring interval (unstopped it would write until the 4-second limit).
    expect(refusedAt).toBeLessThan(200 * 1024 * 1024);
    expect(toolResult(llm.requests, 'file_write', 0).value.details).toMatchObject({ quotaBytes: 40 * 1024 * 1024 });
    expect(toolResult(llm.requests, 'file_delete', 1).value.deleted).toBe(true);
    expect(toolResult(llm.requests, 'shell_run', 3).value.stdout).toBe('back\n');
  });

  it('workspaceCli off in the user’s team policy refuses commands, writes, deletes and jobs', async () => {
    const p = await person(acct);
    await runScript(p, call1('file_write', { path: 'keep.txt', content: 'kept' }));
    const team = await call(app(), '/teams', { key: acct.key, as: p.email, body: { name: 'No shell' } });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    const off = await call(app(), `/teams/${team.body.team.id}/settings/resource-permissions`, { key: acct.key, method: 'PATCH', body: { capabilities: { workspaceCli: 'off' } } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    await runScript(
      p,
      call1('file_write', { path: 'new.txt', content: 'no' }),
      call1('file_delete', { path: 'keep.txt' }),
      sh('touch sneaky.txt'),
      call1('job_start', { command: 'touch sneaky.txt' }),
    );
    for (const [name, n] of [['file_write', 0], ['file_delete', 0], ['shell_run', 0], ['job_start', 0]] as const) {
      expect(toolResult(llm.requests, name, n).value.error).toContain('turned off by the policy');
    }
    expect(readdirSync(workspaceDirs(acct.accountId, p.id).home).filter((n) => !BROWSER_FOLDERS.includes(n))).toEqual(['keep.txt']);
  });
});

describe('save_to_files and background jobs', () => {
  it('save_to_files copies a home file into the user’s Files', async () => {
    const p = await person(acct);
    await runScript(p, sh('printf "a,b\\n1,2\\n" > report.csv'), call1('save_to_files', { path: 'report.csv', name: 'Q3 report.csv' }));
    const saved = toolResult(llm.requests, 'save_to_files').value;
    expect(saved).toMatchObject({ saved: true, name: 'Q3 report.csv', size: 8, mimeType: 'text/csv', from: '/home/user/report.csv' });
    const file = await fetch(`${app().baseUrl}/drive-files/${saved.fileId}/download`, { headers: { Authorization: `Bearer ${p.key}` } });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('a,b\n1,2\n');
  });

  it('save_to_files follows the user’s `files` autonomy cell: under manual nothing is saved and the model is told to ask (issue 46)', async () => {
    const p = await person(acct);
    const set = await call(app(), `/users/${p.id}/preferences/supervision/matrix`, { key: p.key, method: 'PATCH', body: { matrix: { files: { mode: 'manual' } } } });
    expect(set.status).toBe(200);
    await runScript(p, sh('printf "x" > note.txt'), call1('save_to_files', { path: 'note.txt' }));
    const refused = toolResult(llm.requests, 'save_to_files').value;
    expect(refused).toMatchObject({ saved: false, reason: expect.stringContaining('manual') });
    expect(refused.fileId).toBeUndefined();
    const rows = await app().database.pool.query('SELECT count(*)::int AS n FROM drive_files WHERE user_id = $1', [p.id]);
    expect(rows.rows[0].n).toBe(0);
  });

  it('job_start runs longer work in the background; job_status polls it; its end wakes the task with the result', async () => {
    const p = await person(acct);
    llm.reset();
    const wakeAt = new Date(Date.now() + 3_600_000).toISOString();
    llm.enqueue(call1('job_start', { command: 'sleep 6; echo job-output-8812' }), call1('set_alarm', { wakeAt, headline: 'waiting for the job' }));
    const { taskId, runId } = await startTask(p);
    await ended(runId);
    const started = toolResult(llm.requests, 'job_start').value;
    expect(started).toMatchObject({ started: true, kind: 'command', status: 'running' });
    expect((await taskRow(taskId)).status).toBe('alarm_set');
    // The task wakes when the job ends (6 s: longer than the 4-second command limit) and its run reads the result.
    llm.enqueue(call1('job_status', { jobId: started.jobId }), done());
    await until(async () => ((await taskRow(taskId)).status === 'completed' ? true : null), 40_000);
    const messages = JSON.stringify(llm.requests.at(-1)!.messages);
    expect(messages).toContain('job-output-8812');
    const polled = toolResult(llm.requests, 'job_status').value;
    expect(polled).toMatchObject({ jobId: started.jobId, status: 'succeeded', exitCode: 0 });
    expect(polled.outputTail).toContain('job-output-8812');
    const [task] = await db().select().from(tasks).where(eq(tasks.id, taskId));
    expect(task!.tainted).toBe(true);
    expect(task!.taintSources).toEqual(expect.arrayContaining([{ kind: 'web', ref: `workspace job ${started.jobId}` }]));
  });
});

describe('profile, snapshots and cleanup', () => {
  it('the profile reports the sandbox’s limits and measured use, and the MCP skills the user’s runs called', async () => {
    const p = await person(acct);
    // What MCP tool calls of an earlier task of the user's left behind (recorded before the sandbox's first snapshot).
    const earlier = await h.createTask(p);
    await db()
      .insert(taskActivities)
      .values(['mcp__weather__forecast', 'mcp__weather__alerts', 'mcp__crm__lookup'].map((toolName, i) => ({ taskId: earlier, accountId: acct.accountId, kind: 'tool' as const, toolName, toolCallId: `c${i}`, runId: null })));
    await runScript(p, sh('head -c 3M /dev/urandom > data.bin; echo ok'));
    const res = await call(app(), '/workspace/profile', { key: p.key });
    expect(res.status).toBe(200);
    const profile = res.body.profile;
    expect(profile).toMatchObject({ running: true, memoryLimitBytes: 1024 * 1024 * 1024, diskQuotaBytes: 40 * 1024 * 1024, topMcpSlugs: ['weather', 'crm'] });
    expect(profile.currentDiskBytes).toBeGreaterThan(3 * 1024 * 1024);
    expect(profile.peakMemoryBytes).toBeGreaterThan(1024 * 1024);
    let snaps: any[] = [];
    await until(async () => {
      snaps = (await call(app(), '/workspace/snapshots?limit=288', { key: p.key })).body.snapshots;
      return snaps.length ? true : null;
    }, 10_000);
    expect(snaps[0]).toMatchObject({ diskQuotaBytes: 40 * 1024 * 1024, activeMcpSlugs: ['crm', 'weather'] });
    expect(snaps[0].memoryUsedBytes).toBeGreaterThan(1024 * 1024);
    expect(snaps[0].diskUsedBytes).toBeGreaterThan(3 * 1024 * 1024);
  });

  it('cleanup empties the sandbox’s temporary files and the home’s caches without following links; idle sandboxes stop', async () => {
    const p = await person(acct);
    const outside = path.join(root, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(outside, 'precious.txt'), 'keep me');
    await runScript(p, sh(`mkdir -p "$XDG_CACHE_HOME/pip" && echo c > "$XDG_CACHE_HOME/pip/x" && echo t > /tmp/scratch && ln -s ${outside} "$XDG_CACHE_HOME/link" && echo kept > ~/work.txt && echo "$XDG_CACHE_HOME"`));
    expect(toolResult(llm.requests, 'shell_run').value.stdout).toBe('/home/user/.local/cache\n');
    const home = workspaceDirs(acct.accountId, p.id).home;
    const saved = process.env.STEWARD_WORKSPACE_IDLE_MINUTES;
    const res = await call(app(), '/workspace/cleanup', { key: p.key, body: { scope: 'cache' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(readdirSync(path.join(home, '.local', 'cache'))).toEqual([]);
    expect(existsSync(path.join(outside, 'precious.txt'))).toBe(true);
    const { peekWorkspace } = await import('@/server/workspace/browser/manager');
    await peekWorkspace(acct.accountId, p.id)?.stop();
    try {
      process.env.STEWARD_WORKSPACE_IDLE_MINUTES = '0.01';
      await runScript(p, sh('ls /tmp; cat ~/work.txt'));
      expect(toolResult(llm.requests, 'shell_run').value.stdout).toBe('kept\n');
      await until(async () => (peekSandbox(acct.accountId, p.id) === null ? true : null), 10_000);
    } finally {
      if (saved === undefined) delete process.env.STEWARD_WORKSPACE_IDLE_MINUTES;
      else process.env.STEWARD_WORKSPACE_IDLE_MINUTES = saved;
    }
    expect(existsSync(path.join(home, 'work.txt'))).toBe(true);
  });
});
