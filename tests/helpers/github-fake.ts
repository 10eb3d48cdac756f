import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A loopback stand-in for GitHub, for coding-job tests: the OAuth authorize page (approves at
 * once) and token endpoint, `GET /user`, `POST /repos/{owner}/{repo}/pulls`, and the
 * repositories themselves over git's smart HTTP protocol (`git http-backend`, so clones and
 * pushes are real), every git request requiring the token as a Basic password. Everything it
 * was sent is recorded.
 *
 *   const gh = await startGithubFake();
 *   gh.createRepo('ada', 'widgets', { 'README.md': '# Widgets\n' });
 *   process.env.STEWARD_GITHUB_URL = gh.origin; process.env.STEWARD_GITHUB_API_URL = gh.apiUrl;
 */

export type GithubFake = {
  origin: string;
  /** The REST API's base (GitHub Enterprise style: <origin>/api/v3). */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** The access token the token endpoint hands out. */
  token: string;
  user: { id: number; login: string; name: string; email: string };
  authorizeRequests: URLSearchParams[];
  tokenRequests: URLSearchParams[];
  pulls: { owner: string; repo: string; title: string; head: string; base: string; body: string; number: number }[];
  /** Git requests: method, path, whether they carried the token. */
  gitRequests: { method: string; path: string; authorized: boolean }[];
  createRepo: (owner: string, name: string, files: Record<string, string>) => void;
  /** `git show <ref>:<file>` in the bare repository. */
  show: (owner: string, name: string, ref: string, file: string) => string;
  branches: (owner: string, name: string) => string[];
  /** Any git command in the bare repository (its output). */
  git: (owner: string, name: string, ...args: string[]) => string;
  close: () => Promise<void>;
};

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd } });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startGithubFake(): Promise<GithubFake> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'github-fake-'));
  const fake = {
    clientId: 'Iv1.fakeclient',
    clientSecret: 'fake-client-secret',
    token: `gho_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`,
    user: { id: 4242, login: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' },
    authorizeRequests: [] as URLSearchParams[],
    tokenRequests: [] as URLSearchParams[],
    pulls: [] as GithubFake['pulls'],
    gitRequests: [] as GithubFake['gitRequests'],
  };
  const codes = new Set<string>();

  const authorized = (req: IncomingMessage) => {
    const h = req.headers.authorization ?? '';
    if (h === `Bearer ${fake.token}` || h === `token ${fake.token}`) return true;
    const basic = /^Basic (.+)$/.exec(h);
    return !!basic && Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').slice(1).join(':') === fake.token;
  };

  /** git http-backend as a CGI program, the way a web server runs it. */
  async function gitHttp(req: IncomingMessage, res: ServerResponse, url: URL) {
    const ok = authorized(req);
    fake.gitRequests.push({ method: req.method ?? 'GET', path: url.pathname, authorized: ok });
    if (!ok) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"' });
      return res.end();
    }
    const body = await readBody(req);
    const cgi = spawn('git', ['http-backend'], {
      env: {
        NODE_ENV: process.env.NODE_ENV,
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method,
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        CONTENT_LENGTH: String(body.length),
        REMOTE_USER: fake.user.login,
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
    });
    cgi.stdin.end(body);
    const out: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => out.push(c));
    await new Promise((r) => cgi.on('close', r));
    const whole = Buffer.concat(out);
    const split = whole.indexOf('\r\n\r\n') >= 0 ? whole.indexOf('\r\n\r\n') : whole.indexOf('\n\n');
    const sep = whole.indexOf('\r\n\r\n') >= 0 ? 4 : 2;
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of whole.subarray(0, split).toString('utf8').split(/\r?\n/)) {
      const at = line.indexOf(':');
      if (at < 0) continue;
      const k = line.slice(0, at).trim().toLowerCase();
      const v = line.slice(at + 1).trim();
      if (k === 'status') status = Number(v.split(' ')[0]);
      else headers[k] = v;
    }
    res.writeHead(status, headers);
    res.end(whole.subarray(split + sep));
  }

  const server = createServer((req, res) => {
    (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname === '/login/oauth/authorize') {
        fake.authorizeRequests.push(url.searchParams);
        const code = `code_${Math.random().toString(36).slice(2)}`;
        codes.add(code);
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
        const form = new URLSearchParams((await readBody(req)).toString('utf8'));
        fake.tokenRequests.push(form);
        const good = form.get('client_id') === fake.clientId && form.get('client_secret') === fake.clientSecret && codes.delete(form.get('code') ?? '');
        const answer: Record<string, string> = good ? { access_token: fake.token, token_type: 'bearer', scope: 'repo,read:user,user:email' } : { error: 'bad_verification_code' };
        // As GitHub does: form-encoded unless JSON is asked for, and 200 even for an error.
        if ((req.headers.accept ?? '').includes('application/json')) return json(res, 200, answer);
        res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' });
        return res.end(new URLSearchParams(answer).toString());
      }
      if (url.pathname.startsWith('/api/v3/')) {
        if (!authorized(req)) return json(res, 401, { message: 'Bad credentials' });
        const rest = url.pathname.slice('/api/v3'.length);
        if (rest === '/user' && req.method === 'GET') return json(res, 200, fake.user);
        const pulls = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(rest);
        if (pulls && req.method === 'POST') {
          const [, owner, repo] = pulls as unknown as [string, string, string];
          const body = JSON.parse((await readBody(req)).toString('utf8'));
          const branches = listBranches(owner, repo);
          if (!branches.includes(body.head) || !branches.includes(body.base)) return json(res, 422, { message: 'Validation Failed', errors: [{ field: 'head' }] });
          const number = fake.pulls.length + 1;
          fake.pulls.push({ owner, repo, title: body.title, head: body.head, base: body.base, body: body.body ?? '', number });
          return json(res, 201, { number, html_url: `${origin}/${owner}/${repo}/pull/${number}`, state: 'open' });
        }
        return json(res, 404, { message: 'Not Found' });
      }
      if (/^\/[^/]+\/[^/]+\.git\//.test(url.pathname)) return gitHttp(req, res, url);
      json(res, 404, { message: 'Not Found' });
    })().catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { message: (e as Error).message });
      else res.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bare = (owner: string, name: string) => path.join(root, owner, `${name}.git`);
  const listBranches = (owner: string, name: string) =>
    git(bare(owner, name), 'for-each-ref', '--format=%(refname:short)', 'refs/heads').split('\n').filter(Boolean);

  return {
    ...fake,
    origin,
    apiUrl: `${origin}/api/v3`,
    createRepo: (owner, name, files) => {
      const work = mkdtempSync(path.join(os.tmpdir(), 'github-fake-work-'));
      git(work, 'init', '--quiet', '--initial-branch=main');
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
        writeFileSync(path.join(work, file), text);
      }
      git(work, 'add', '-A');
      git(work, '-c', 'user.name=Fake', '-c', 'user.email=fake@example.com', 'commit', '--quiet', '-m', 'Initial commit');
      mkdirSync(path.join(root, owner), { recursive: true });
      git(root, 'clone', '--quiet', '--bare', work, bare(owner, name));
      git(bare(owner, name), 'config', 'http.receivepack', 'true');
      rmSync(work, { recursive: true, force: true });
    },
    show: (owner, name, ref, file) => git(bare(owner, name), 'show', `${ref}:${file}`),
    branches: listBranches,
    git: (owner, name, ...args) => git(bare(owner, name), ...args),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
