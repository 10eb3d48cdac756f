import type { Db } from '@/db/client';
import type { WorkspaceJobRow } from '@/db/schema';
import type { ModelTier } from '@/server/models/tiers';
import { cloneUrl, githubUser, openPullRequest, type GithubUser } from '@/server/channels/github/api';
import { githubToken } from '@/server/channels/github/connection';
import { sandboxFor } from '../shell/manager';
import type { CommandResult, UserSandbox } from '../shell/sandbox';
import { JobFailure, runCodingAgent } from './coding-agent';
import { noteProgress, type JobEnd } from './store';

/*
 * A coding job (spec 2: "Coding jobs can be delegated to a coding agent in the workspace"; spec
 * 5: they open a pull request), in the user's sandbox with the user's GitHub connection:
 *
 * 1. clone the repository into ~/jobs/<job>/<name> and branch off its default branch;
 * 2. the coding agent works in the checkout (coding-agent.ts) until it calls finish;
 * 3. commit as the GitHub user, push the branch steward/job-<job>, open the pull request.
 *
 * The token reaches git only for the clone and the push, through a credential helper that reads
 * it from that one command's environment: it is never written to the checkout's configuration,
 * a file or the job's record, and the agent's own commands run without it.
 *
 * The agent works in the checkout and the home with the user's rights, so what it may have left
 * there is not trusted when the token is handed over (issue 40: "a coding job pushing to a
 * repository other than the one connected"). The push names the connected repository's URL
 * itself, never `origin` (the agent can change remotes); the helper answers only for that host
 * and repository path (a URL rewrite, `url.*.insteadOf`, reaches nowhere with the token, and a
 * checkout whose own configuration rewrites URLs is refused); the home's and the system's git
 * configuration are not read; hooks, fsmonitor and askpass programs the agent could have set do
 * not run; only the connected URL's protocol is allowed.
 */

const GIT_STEP_MS = 5 * 60_000;

/**
 * A credential helper that answers with the token from the command's environment, and only for
 * the connected repository's host and path (git tells it both: credential.useHttpPath).
 */
const HELPER = `!f() { test "$1" = get || exit 0; h=; p=; while IFS== read -r k v; do case "$k" in host) h=$v;; path) p=$v;; esac; done; [ "$h" = "$STEWARD_GIT_HOST" ] && [ "\${p%.git}" = "\${STEWARD_GIT_PATH%.git}" ] || exit 0; echo username=x-access-token; echo "password=$STEWARD_GIT_TOKEN"; }; f`;

/** What a token-bearing git command runs with: nothing the agent could have configured runs, and the token answers one repository. */
const AUTH = (scheme: string) =>
  [
    '-c core.hooksPath=/dev/null',
    '-c core.fsmonitor=false',
    '-c http.sslVerify=true',
    '-c protocol.allow=never',
    `-c protocol.${scheme}.allow=always`,
    '-c credential.useHttpPath=true',
    '-c credential.helper=',
    `-c 'credential.helper=${HELPER}'`,
  ].join(' ');

/** The environment of a token-bearing git command: the token, where it may go, and no configuration from the home or the system. */
function withToken(token: string, repo: string): Record<string, string> {
  const url = new URL(cloneUrl(repo));
  return {
    STEWARD_GIT_TOKEN: token,
    STEWARD_REPO_URL: url.toString(),
    STEWARD_GIT_HOST: url.host,
    STEWARD_GIT_PATH: url.pathname.replace(/^\//, ''),
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_ASKPASS: '/bin/false',
    GIT_TERMINAL_PROMPT: '0',
  };
}

const schemeOf = (repo: string) => new URL(cloneUrl(repo)).protocol.replace(/:$/, '');

function failed(what: string, r: CommandResult, secret: string): never {
  const said = `${r.stderr}\n${r.stdout}`.trim().split(secret).join('***').slice(-1500);
  throw new JobFailure(`${what} failed (exit ${r.exitCode ?? r.signal ?? 'killed'}${r.timedOut ? ', timed out' : ''})${said ? `: ${said}` : ''}`);
}

async function git(s: UserSandbox, command: string, opts: { cwd?: string; env?: Record<string, string> } = {}) {
  return s.run(command, { timeoutMs: Math.min(GIT_STEP_MS, s.cfg.jobSeconds * 1000), ...opts });
}

export async function runCodingJob(db: Db, job: WorkspaceJobRow, tier: ModelTier): Promise<JobEnd> {
  const token = await githubToken(db, job.accountId, job.userId);
  const me = await githubUser(token);
  const sandbox = await sandboxFor(job.accountId, job.userId);
  // The sandbox stays up while the model thinks between commands.
  const release = sandbox.hold();
  try {
    return await inCheckout(db, job, tier, sandbox, token, me);
  } finally {
    release();
  }
}

async function inCheckout(db: Db, job: WorkspaceJobRow, tier: ModelTier, sandbox: UserSandbox, token: string, me: GithubUser): Promise<JobEnd> {
  const { repo, instructions } = job.coding!;
  const note = (text: string) => noteProgress(db, job.id, text);
  const checkout = `jobs/${job.id}/${repo.split('/')[1]}`;
  const branch = `steward/job-${job.id}`;
  const auth = AUTH(schemeOf(repo));
  const tokenEnv = withToken(token, repo);

  await note(`cloning ${repo}`);
  const clone = await git(sandbox, `git ${auth} clone --quiet --depth 50 -- "$STEWARD_REPO_URL" "$STEWARD_CHECKOUT"`, {
    env: { ...tokenEnv, STEWARD_CHECKOUT: checkout },
  });
  if (clone.exitCode !== 0) failed('git clone', clone, token);
  const head = await git(sandbox, 'git rev-parse --abbrev-ref HEAD', { cwd: checkout });
  if (head.exitCode !== 0) failed('reading the default branch', head, token);
  const base = head.stdout.trim();
  const branched = await git(sandbox, 'git checkout --quiet -b "$STEWARD_BRANCH"', { cwd: checkout, env: { STEWARD_BRANCH: branch } });
  if (branched.exitCode !== 0) failed('git checkout', branched, token);

  await note(`coding agent working on ${base}`);
  const { title, summary } = await runCodingAgent({ db, jobId: job.id, accountId: job.accountId, userId: job.userId, tier, repo, instructions, sandbox, checkout, note });

  await note('committing');
  const author = { STEWARD_AUTHOR: me.name || me.login, STEWARD_EMAIL: me.email || `${me.id}+${me.login}@users.noreply.github.com`, STEWARD_TITLE: title };
  const commit = await git(sandbox, 'git add -A && (git diff --cached --quiet || git -c user.name="$STEWARD_AUTHOR" -c user.email="$STEWARD_EMAIL" commit --quiet -m "$STEWARD_TITLE") && git rev-list --count "origin/$STEWARD_BASE..HEAD"', {
    cwd: checkout,
    env: { ...author, STEWARD_BASE: base },
  });
  if (commit.exitCode !== 0) failed('git commit', commit, token);
  if (Number(commit.stdout.trim()) === 0) throw new JobFailure('the coding agent changed nothing: no pull request was opened');

  await note(`pushing ${branch}`);
  // A checkout whose own configuration rewrites URLs (the agent could write .git/config) is not pushed from.
  const rewrites = await git(sandbox, "git config --local --get-regexp '^url\\..*\\.(insteadof|pushinsteadof)$' || true", { cwd: checkout });
  if (rewrites.stdout.trim()) throw new JobFailure('the checkout’s git configuration rewrites repository URLs (url.*.insteadOf): nothing was pushed');
  // To the connected repository by its URL: never `origin`, which the agent may have pointed elsewhere.
  const push = await git(sandbox, `git ${auth} push --quiet "$STEWARD_REPO_URL" "HEAD:refs/heads/$STEWARD_BRANCH"`, { cwd: checkout, env: { ...tokenEnv, STEWARD_BRANCH: branch } });
  if (push.exitCode !== 0) failed('git push', push, token);

  const pr = await openPullRequest(token, repo, { title, head: branch, base, body: `${summary}\n\n---\nOpened by a Steward coding job (${job.id}).`.trim() });
  await note(`pull request #${pr.number} opened`);
  return { status: 'succeeded', result: { pullRequestUrl: pr.url, pullRequestNumber: pr.number, branch, base, title } };
}
