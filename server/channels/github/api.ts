import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { z } from 'zod';
import { AppError } from '@/server/http/errors';
import { applyTimeouts, TOTAL_MS } from '@/server/http/outbound-timeouts';
import { addressAllowed, guardedLookup } from '@/server/http/outbound-url';
import { githubUrls } from './config';

/*
 * The few GitHub REST calls coding jobs make, as the user (their OAuth token): who they are, and
 * opening a pull request. Calls to a provider follow the outbound address rule like webhooks
 * (spec 5): a private range is reachable only when STEWARD_PROVIDER_ALLOWED_RANGES allows it.
 * Answers are checked with Zod; nothing else of them is kept.
 */

const ALLOW = 'STEWARD_PROVIDER_ALLOWED_RANGES';
const TIMEOUT_MS = TOTAL_MS.github;
const MAX_BODY = 1024 * 1024;

type Answer = { status: number; body: unknown };

function request(method: 'GET' | 'POST', url: URL, token: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !addressAllowed(host, ALLOW)) return reject(new AppError(502, 'github_unreachable', `GitHub at ${host} is inside the deployment's network (allow it with ${ALLOW})`));
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const send = url.protocol === 'https:' ? https.request : http.request;
    const req = send(
      url,
      {
        method,
        lookup: guardedLookup(ALLOW),
        timeout: TIMEOUT_MS,
        headers: {
          Accept: 'application/vnd.github+json',
          Authorization: `Bearer ${token}`,
          'User-Agent': 'Steward',
          'X-GitHub-Api-Version': '2022-11-28',
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_BODY) parts.push(c);
        });
        res.on('end', () => {
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(Buffer.concat(parts).toString('utf8'));
          } catch {
            // not JSON: kept as null
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    applyTimeouts(req, TIMEOUT_MS);
    req.on('error', (e) => reject(e instanceof AppError ? e : new AppError(502, 'github_unreachable', `GitHub could not be reached: ${e.message}`)));
    req.end(payload);
  });
}

const GithubUser = z.object({ id: z.number(), login: z.string(), name: z.string().nullable().optional(), email: z.string().nullable().optional() });
export type GithubUser = z.infer<typeof GithubUser>;

const PullRequest = z.object({ number: z.number(), html_url: z.string(), state: z.string().optional() });

const refusal = (what: string, a: Answer) => {
  const message = (a.body as { message?: unknown } | null)?.message;
  return new AppError(502, 'github_refused', `GitHub refused ${what} (${a.status}${typeof message === 'string' ? `: ${message.slice(0, 300)}` : ''})`);
};

/** GET /user: whose token it is. */
export async function githubUser(token: string): Promise<GithubUser> {
  const a = await request('GET', new URL(`${githubUrls().api}/user`), token);
  const user = GithubUser.safeParse(a.body);
  if (a.status !== 200 || !user.success) throw refusal('to say whose token this is', a);
  return user.data;
}

/** POST /repos/{owner}/{repo}/pulls. */
export async function openPullRequest(token: string, repo: string, pr: { title: string; head: string; base: string; body: string }) {
  const [owner, name] = repo.split('/');
  const a = await request('POST', new URL(`${githubUrls().api}/repos/${encodeURIComponent(owner!)}/${encodeURIComponent(name!)}/pulls`), token, pr);
  const opened = PullRequest.safeParse(a.body);
  if (a.status !== 201 || !opened.success) throw refusal('to open the pull request', a);
  return { number: opened.data.number, url: opened.data.html_url };
}

/** Where git clones and pushes the repository (the web side, over HTTPS). */
export const cloneUrl = (repo: string) => `${githubUrls().web}/${repo}.git`;
