import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthConnections, workspaceJobs } from '@/db/schema';
import { githubEndpoints } from '@/server/channels/github/endpoints';
import { endpoints } from '@/server/endpoints';
import { workspaceDirs } from '@/server/workspace/browser/launch';
import { stopAllSandboxes } from '@/server/workspace/shell/manager';
import { newAccount, type AccountFixture } from '../helpers/client';
import { startGithubFake, type GithubFake } from '../helpers/github-fake';
import type { ModelRequest, ScriptedModel, ScriptedReply } from '../helpers/scripted-model';
import { useRunHarness } from '../agent/run-harness';

/*
 * A coding job end to end: the user connects GitHub through Steward's OAuth flow (against a
 * loopback GitHub stand-in: authorize, token, GET /user, git over smart HTTP, POST .../pulls),
 * a task starts a coding job, the coding agent (the scripted model) works in a real checkout in
 * the user's sandbox, Steward commits, pushes and opens the pull request, and the task is woken
 * with the result. The sandbox reaches the stand-in through the egress proxy, which is allowed
 * loopback for this file only.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'steward-coding-test-'));
chmodSync(root, 0o711);
process.env.STEWARD_WORKSPACE_DIR = path.join(root, 'workspaces');
process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = '127.0.0.1/32';
process.env.STEWARD_PROVIDER_ALLOWED_RANGES = '127.0.0.1/32';
// Until server/endpoints.ts lists them: the GitHub connection's three paths, served like every other.
for (const e of githubEndpoints) if (!endpoints.some((x) => x.method === e.method && x.path === e.path)) endpoints.push(e);

const h = useRunHarness();
const { app, db, person, startTask, taskRow, ended, until } = h;
let llm: ScriptedModel;
let acct: AccountFixture;
let gh: GithubFake;
beforeAll(async () => {
  llm = h.state.llm;
  acct = await newAccount(app());
  gh = await startGithubFake();
  Object.assign(process.env, { GITHUB_CLIENT_ID: gh.clientId, GITHUB_CLIENT_SECRET: gh.clientSecret, STEWARD_GITHUB_URL: gh.origin, STEWARD_GITHUB_API_URL: gh.apiUrl });
});
afterAll(async () => {
  await stopAllSandboxes();
  await gh?.close();
  rmSync(root, { recursive: true, force: true });
});

const call1 = (name: string, args: unknown = {}): ScriptedReply => ({ toolCalls: [{ name, arguments: args }] });
const isCodingAgent = (r: ModelRequest) => String(r.messages[0]?.content ?? '').includes('You are a coding agent');

/** The user's browser through the connection flow: start (API call), begin link, GitHub, callback. */
async function connectGithub(key: string) {
  const started = await fetch(`${app().baseUrl}/oauth/github/authorize`, { headers: { Authorization: `Bearer ${key}` }, redirect: 'manual' });
  expect(started.status).toBe(302);
  const begun = await fetch(started.headers.get('location')!, { redirect: 'manual' });
  expect(begun.status, await begun.clone().text()).toBe(302);
  const cookie = begun.headers.get('set-cookie')!.split(';')[0]!;
  const authorize = new URL(begun.headers.get('location')!);
  expect(authorize.origin + authorize.pathname).toBe(`${gh.origin}/login/oauth/authorize`);
  expect(authorize.searchParams.get('client_id')).toBe(gh.clientId);
  const approved = await fetch(authorize, { redirect: 'manual' });
  const back = approved.headers.get('location')!;
  expect(back.startsWith(`${app().baseUrl}/oauth/github/callback?`)).toBe(true);
  const finished = await fetch(back, { headers: { cookie } });
  const body = await finished.json();
  expect(finished.status, JSON.stringify(body)).toBe(200);
  return body;
}

describe('coding jobs', () => {
  it('a coding job clones the user’s repository, lets the coding agent work, and opens a pull request; the task is woken with it', async () => {
    const p = await person(acct);
    const connected = await connectGithub(p.key);
    expect(connected).toMatchObject({ ok: true, connection: { provider: 'github', purpose: 'code_hosting' } });
    expect(gh.tokenRequests[0]!.get('code')).toMatch(/^code_/);
    gh.createRepo('ada', 'widgets', { 'README.md': '# Widgets\nMake widgets.\n', 'src/index.js': 'export const widget = 1;\n' });

    const coding = [
      call1('run_command', { command: 'cat README.md; git branch --show-current' }),
      call1('write_file', { path: 'src/hello.txt', content: 'hello from steward\n' }),
      call1('read_file', { path: 'src/hello.txt' }),
      call1('finish', { title: 'Add hello', summary: 'Adds src/hello.txt.' }),
    ];
    const wakeAt = new Date(Date.now() + 3_600_000).toISOString();
    const task = [
      call1('job_start', { coding: { repo: 'ada/widgets', instructions: 'Add a hello file.' } }),
      call1('set_alarm', { wakeAt, headline: 'waiting for the pull request' }),
      call1('complete_task', { summary: 'pull request opened' }),
    ];
    llm.reset();
    llm.setFallback((r) => (isCodingAgent(r) ? coding : task).shift() ?? { error: { status: 500, message: 'nothing scripted' } });
    const { taskId, runId } = await startTask(p, {}, 'Add a hello file to ada/widgets');
    await ended(runId);
    await until(async () => ((await taskRow(taskId)).status === 'completed' ? true : null), 60_000);

    const [job] = await db().select().from(workspaceJobs).where(eq(workspaceJobs.taskId, taskId));
    expect(job, JSON.stringify(job)).toMatchObject({ kind: 'coding', status: 'succeeded' });
    const branch = `steward/job-${job!.id}`;
    expect(job!.result).toEqual({ pullRequestUrl: `${gh.origin}/ada/widgets/pull/1`, pullRequestNumber: 1, branch, base: 'main', title: 'Add hello' });
    expect(gh.pulls).toEqual([{ owner: 'ada', repo: 'widgets', title: 'Add hello', head: branch, base: 'main', body: expect.stringContaining('Adds src/hello.txt.'), number: 1 }]);
    expect(gh.show('ada', 'widgets', branch, 'src/hello.txt')).toBe('hello from steward\n');
    expect(gh.git('ada', 'widgets', 'log', '-1', '--format=%an <%ae>', branch).trim()).toBe('Ada Lovelace <ada@example.com>');
    expect(gh.gitRequests.some((g) => g.path.endsWith('/git-receive-pack') && g.authorized)).toBe(true);

    // The coding agent read the repository as untrusted data; the task's woken run read the job's result.
    const agentCalls = llm.requests.filter(isCodingAgent);
    expect(JSON.stringify(agentCalls[1]!.messages)).toContain('<untrusted-data source=\\"tool:run_command\\">');
    expect(JSON.stringify(agentCalls[1]!.messages)).toContain('Make widgets.');
    const woken = llm.requests.filter((r) => !isCodingAgent(r)).at(-1)!;
    expect(JSON.stringify(woken.messages)).toContain(`${gh.origin}/ada/widgets/pull/1`);
    expect(JSON.stringify(woken.messages)).toContain('source=\\"tool:job_status\\"');

    // The token is nowhere in clear: not in the database, not in the checkout's configuration.
    const checkout = path.join(workspaceDirs(acct.accountId, p.id).home, 'jobs', job!.id, 'widgets');
    expect(readFileSync(path.join(checkout, '.git', 'config'), 'utf8')).not.toContain(gh.token);
    const [{ found }] = (
      await db().execute<{ found: string }>(
        sql`SELECT count(*)::text AS found FROM (SELECT row_to_json(j)::text t FROM workspace_jobs j UNION ALL SELECT row_to_json(a)::text FROM task_activities a UNION ALL SELECT row_to_json(c)::text FROM oauth_connections c) x WHERE t LIKE ${'%' + gh.token + '%'}`,
      )
    ).rows;
    expect(found).toBe('0');
    const [conn] = await db().select().from(oauthConnections).where(eq(oauthConnections.userId, p.id));
    expect(conn!.details).toMatchObject({ login: 'ada' });
  });

  it('without the user’s GitHub connection a coding job is refused and nothing starts', async () => {
    const p = await person(acct);
    llm.reset();
    llm.setFallback(null);
    llm.enqueue(call1('job_start', { coding: { repo: 'ada/widgets', instructions: 'Anything.' } }), call1('complete_task', { summary: 'no' }));
    const { runId } = await startTask(p);
    await ended(runId);
    const last = llm.requests.at(-1)!.messages;
    const result = last.find((m: any) => m.role === 'tool')!.content as string;
    expect(result).toContain('has not connected GitHub');
    expect(await db().select().from(workspaceJobs).where(eq(workspaceJobs.userId, p.id))).toEqual([]);
  });
});
