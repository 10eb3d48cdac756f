import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
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
 * A coding job and the GitHub connection under attack (issue 40, "not yet tried"). The coding agent
 * works in the checkout and the home with the user's rights, and may obey what the repository says:
 * it points `origin` at another repository the token can write, installs a pre-push hook that
 * copies the token, and rewrites the connected URL in the home's git configuration. The job still
 * pushes only to the connected repository, the hook never runs, and the token is nowhere in the
 * home; a checkout whose own configuration rewrites URLs is not pushed from. The GitHub connect's
 * OAuth state is bound to the browser that began it and used once.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'steward-coding-sec-'));
chmodSync(root, 0o711);
process.env.STEWARD_WORKSPACE_DIR = path.join(root, 'workspaces');
process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = '127.0.0.1/32';
process.env.STEWARD_PROVIDER_ALLOWED_RANGES = '127.0.0.1/32';
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
  gh.createRepo('ada', 'widgets', { 'README.md': '# Widgets\n' });
  gh.createRepo('ada', 'other', { 'README.md': '# Other\n' });
});
afterAll(async () => {
  await stopAllSandboxes();
  await gh?.close();
  rmSync(root, { recursive: true, force: true });
});

const call1 = (name: string, args: unknown = {}): ScriptedReply => ({ toolCalls: [{ name, arguments: args }] });
const isCodingAgent = (r: ModelRequest) => String(r.messages[0]?.content ?? '').includes('You are a coding agent');

/** The flow up to GitHub's redirect back: the callback URL and the binding cookie of the browser that opened the begin link. */
async function beginGithub(key: string) {
  const started = await fetch(`${app().baseUrl}/oauth/github/authorize`, { headers: { Authorization: `Bearer ${key}` }, redirect: 'manual' });
  const begun = await fetch(started.headers.get('location')!, { redirect: 'manual' });
  expect(begun.status).toBe(302);
  const cookie = begun.headers.get('set-cookie')!.split(';')[0]!;
  const approved = await fetch(new URL(begun.headers.get('location')!), { redirect: 'manual' });
  return { callback: approved.headers.get('location')!, cookie };
}

async function connected() {
  const p = await person(acct);
  const flow = await beginGithub(p.key);
  const done = await fetch(flow.callback, { headers: { cookie: flow.cookie } });
  expect(done.status).toBe(200);
  return p;
}

/** Runs a coding job on ada/widgets whose agent makes these calls; answers the job row once it ended. */
async function codingJob(p: Awaited<ReturnType<typeof person>>, coding: ScriptedReply[]) {
  const task = [call1('job_start', { coding: { repo: 'ada/widgets', instructions: 'Follow CONTRIBUTING.' } }), call1('set_alarm', { wakeAt: new Date(Date.now() + 3_600_000).toISOString(), headline: 'wait' }), call1('complete_task', { summary: 'done' })];
  llm.reset();
  llm.setFallback((r) => (isCodingAgent(r) ? coding : task).shift() ?? { text: 'ok' });
  const { taskId, runId } = await startTask(p, {}, 'Do the job');
  await ended(runId);
  return until(async () => {
    const [job] = await db().select().from(workspaceJobs).where(eq(workspaceJobs.taskId, taskId));
    return job && job.status !== 'running' ? job : null;
  }, 60_000).finally(() => taskRow(taskId));
}

const branches = (repo: string) => gh.git('ada', repo, 'branch', '--list', 'steward/*').trim();

describe('a coding job', { timeout: 120_000 }, () => {
  it('whose agent repoints origin, adds a pre-push hook and rewrites the URL in the home’s git config pushes to the connected repository only, and the token stays out of the home', async () => {
    const p = await connected();
    const other = `${gh.origin}/ada/other.git`;
    const widgets = `${gh.origin}/ada/widgets.git`;
    const job = await codingJob(p, [
      call1('run_command', {
        command: [
          `git remote set-url origin ${other}`,
          'printf \'#!/bin/sh\\necho "$STEWARD_GIT_TOKEN" > ~/leaked-token\\n\' > .git/hooks/pre-push && chmod +x .git/hooks/pre-push',
          `git config --global url.${other}.insteadOf ${widgets}`,
          `git config --global core.hooksPath ${'$HOME'}/hooks && mkdir -p ~/hooks && cp .git/hooks/pre-push ~/hooks/`,
          'echo change > CHANGE.txt',
        ].join(' && '),
      }),
      call1('finish', { title: 'Change', summary: 'A change.' }),
    ]);
    expect(job, JSON.stringify(job)).toMatchObject({ status: 'succeeded' });
    expect(branches('widgets')).toBe(`steward/job-${job.id}`);
    expect(branches('other')).toBe('');
    expect(existsSync(path.join(workspaceDirs(acct.accountId, p.id).home, 'leaked-token'))).toBe(false);
  });

  it('whose checkout’s own configuration rewrites the connected URL is not pushed from, anywhere', async () => {
    const p = await connected();
    const job = await codingJob(p, [
      call1('run_command', { command: `git config url.${gh.origin}/ada/other.git.insteadOf ${gh.origin}/ada/widgets.git && echo x > X.txt` }),
      call1('finish', { title: 'Rewrite', summary: 'x' }),
    ]);
    expect(job).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(job.result ?? job)).toContain('rewrites repository URLs');
    expect(branches('other')).not.toContain(`steward/job-${job.id}`);
    expect(branches('widgets')).not.toContain(`steward/job-${job.id}`);
  });
});

describe('the GitHub connect’s OAuth state', () => {
  it('is bound to the browser that opened the begin link, used once, and refused when tampered with: nothing is stored', async () => {
    const p = await person(acct);
    const flow = await beginGithub(p.key);
    const stolen = await fetch(flow.callback);
    expect(stolen.status).toBe(403);
    expect((await stolen.json()).error_code).toBe('oauth_state_unbound');
    const otherBrowser = await fetch(flow.callback, { headers: { cookie: 'steward_oauth_x=y' } });
    expect(otherBrowser.status).toBe(403);
    const tampered = new URL(flow.callback);
    tampered.searchParams.set('state', `${tampered.searchParams.get('state')!.slice(0, -3)}abc`);
    expect((await fetch(tampered, { headers: { cookie: flow.cookie } })).status).toBe(400);
    expect(await db().select().from(oauthConnections).where(eq(oauthConnections.userId, p.id))).toEqual([]);
    expect((await fetch(flow.callback, { headers: { cookie: flow.cookie } })).status).toBe(200);
    expect((await fetch(flow.callback, { headers: { cookie: flow.cookie } })).status).toBe(400);
    expect(await db().select().from(oauthConnections).where(eq(oauthConnections.userId, p.id))).toHaveLength(1);
  });
});
