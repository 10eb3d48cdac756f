import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { executorFunctions } from '@/db/schema';
import { hashedSigningKey } from '@/server/executor/config';
import { startIngress } from '@/server/executor/ingress';
import { callFunction, signBody } from '@/server/executor/protocol';
import { applyFront } from '@/server/http/forwarded';
import { hosted } from '../helpers/hosted';
import { useTestServer } from '../helpers/server';

/**
 * The durable-work engine seen from outside: /api/inngest as the app serves it (the route file,
 * behind the same front Next.js gets in npm start), the executor's loopback ingress, and the
 * signed calls between them.
 */
type Route = Record<'GET' | 'POST' | 'PUT', (req: Request, ctx: unknown) => Promise<Response>>;
const holder: { route: Route | null } = { route: null };

/** Next.js's part: the request as a Web Request to the route's handler, the answer written back. */
async function nextRoute(req: http.IncomingMessage, res: http.ServerResponse) {
  applyFront(req, res);
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const method = (req.method ?? 'GET') as keyof Route;
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const request = new Request(`http://${req.headers.host}${req.url}`, { method, headers, body: method === 'GET' ? undefined : Buffer.concat(chunks) });
  const answer = await holder.route![method](request, {});
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(Buffer.from(await answer.arrayBuffer()));
}

const app = useTestServer({ fallback: (req, res) => void nextRoute(req, res) });
const signingKey = `signkey-prod-${randomBytes(32).toString('hex')}`;
const eventKey = randomBytes(12).toString('hex');
let ingress: Awaited<ReturnType<typeof startIngress>>;
let serveUrl = '';

beforeAll(async () => {
  serveUrl = `${new URL(app().baseUrl).origin}/api/inngest`;
  ingress = await startIngress({ db: app().database.db, signingKey, eventKey, serveUrl });
  // What npm start sets before the app's modules load (scripts/start.ts).
  vi.stubEnv('DATABASE_URL', app().database.pool.options.connectionString as string);
  vi.stubEnv('INNGEST_SIGNING_KEY', signingKey);
  vi.stubEnv('INNGEST_EVENT_KEY', eventKey);
  vi.stubEnv('STEWARD_EXECUTOR_URL', ingress.url);
  vi.stubEnv('STEWARD_INNGEST_SERVE_URL', serveUrl);
  vi.stubEnv('RATE_LIMIT_FAILED_AUTH_PER_MINUTE', '4');
  // Each test speaks from its own client address (behind a trusted proxy), so budgets stay apart.
  vi.stubEnv('TRUST_PROXY', '1');
  holder.route = (await import('@/app/api/inngest/route')) as unknown as Route;
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await ingress?.close();
});

const registered = () => app().database.db.select().from(executorFunctions);
const put = (opts: { host?: string; ip: string; signature?: string }) =>
  hosted(`${app().baseUrl}/inngest`, {
    method: 'PUT',
    host: opts.host ?? 'attacker.example',
    headers: { 'X-Forwarded-For': opts.ip, 'X-Forwarded-Host': 'attacker.example', ...(opts.signature ? { 'X-Inngest-Signature': opts.signature } : {}) },
  });
const now = () => Math.floor(Date.now() / 1000);

describe('registration (PUT /api/inngest)', () => {
  it('an unsigned PUT, or one signed with another key, is refused and registers nothing', async () => {
    const unsigned = await put({ ip: '198.51.100.10' });
    expect(unsigned.status).toBe(401);
    const forged = await put({ ip: '198.51.100.10', signature: signBody('', `signkey-prod-${randomBytes(32).toString('hex')}`, now()) });
    expect(forged.status).toBe(401);
    const stale = await put({ ip: '198.51.100.10', signature: signBody('', signingKey, now() - 3600) });
    expect(stale.status).toBe(401);
    expect(await registered()).toEqual([]);
  });

  it('a signed PUT registers every function at the configured serve URL, whatever Host and X-Forwarded-Host name', async () => {
    const res = await put({ ip: '198.51.100.11', signature: signBody('', signingKey, now()) });
    expect(res.status).toBe(200);
    const rows = await registered();
    expect(rows.map((r) => r.id).sort()).toEqual(expect.arrayContaining(['steward-heartbeat']));
    for (const r of rows) expect(r.url).toBe(serveUrl);
    expect(JSON.stringify(rows)).not.toContain('attacker');
  });

  it('refused PUTs count as failed authentications: past the budget they get 429, while signed ones still register', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await put({ ip: '198.51.100.13' })).status);
    expect(statuses).toEqual([401, 401, 401, 401]);
    const fifth = await put({ ip: '198.51.100.13' });
    expect(fifth.status).toBe(429);
    expect(Number(fifth.headers['retry-after'])).toBeGreaterThan(0);
    expect((await put({ ip: '198.51.100.13', signature: signBody('', signingKey, now()) })).status).toBe(200);
    expect((await put({ ip: '198.51.100.14' })).status).toBe(401);
  });
});

describe('the executor ingress', () => {
  const register = (body: unknown, auth: string | null = hashedSigningKey(signingKey)) =>
    fetch(`${ingress.url}/fn/register`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: `Bearer ${auth}` } : {}) }, body: JSON.stringify(body) });
  const fn = (url: string) => ({ id: 'steward-heartbeat', name: 'heartbeat', triggers: [{ event: 'steward/heartbeat' }], steps: { step: { id: 'step', name: 'step', runtime: { type: 'http', url: `${url}?fnId=steward-heartbeat&stepId=step` } } } });

  it('accepts registration only with the signing key, and only for its own serve URL', async () => {
    const before = await registered();
    expect((await register({ appName: 'steward', url: serveUrl, functions: [fn(serveUrl)] }, null)).status).toBe(401);
    expect((await register({ appName: 'steward', url: serveUrl, functions: [fn(serveUrl)] }, hashedSigningKey(`signkey-prod-${randomBytes(32).toString('hex')}`))).status).toBe(401);

    const elsewhere = await register({ appName: 'steward', url: 'http://attacker.example/api/inngest', functions: [fn('http://attacker.example/api/inngest')] });
    expect(elsewhere.status).toBe(400);
    expect((await elsewhere.json()).error).toMatch(/serve URL/);
    const oneStepElsewhere = await register({ appName: 'steward', url: serveUrl, functions: [fn('http://169.254.169.254/latest')] });
    expect(oneStepElsewhere.status).toBe(400);
    expect((await register({ appName: 'steward', functions: 'all' })).status).toBe(400);
    expect(await registered()).toEqual(before);

    expect((await register({ appName: 'steward', url: `${serveUrl}?deployId=1`, functions: [fn(serveUrl)] })).status).toBe(200);
  });

  it('the serve endpoint runs only calls signed with the signing key; forged ones count against the caller’s address', async () => {
    const call = (key: string) =>
      callFunction({ url: serveUrl, functionId: 'steward-heartbeat', stepId: 'step', signingKey: key, event: { name: 'steward/heartbeat', data: {}, id: 'e1', ts: Date.now() }, steps: {}, stack: [], runId: `run-${randomBytes(4).toString('hex')}`, attempt: 0, maxAttempts: 3, disableImmediateExecution: false });
    const forgedKey = `signkey-prod-${randomBytes(32).toString('hex')}`;
    for (let i = 0; i < 4; i++) expect(await call(forgedKey)).toMatchObject({ kind: 'error', error: { message: 'Unauthorized' } });
    expect(await call(forgedKey)).toMatchObject({ kind: 'error', error: { ok: false, error: expect.stringMatching(/failed authentications/) } });
    // The executor calls from the same loopback address: its signed calls still run.
    expect((await call(signingKey)).kind).toBe('ops');
  });

  it('an ingress without a configured serve URL (tests, benchmark) accepts loopback serve URLs only', async () => {
    const loose = await startIngress({ db: app().database.db, signingKey, eventKey });
    try {
      const send = (url: string) =>
        fetch(`${loose.url}/fn/register`, { method: 'POST', headers: { Authorization: `Bearer ${hashedSigningKey(signingKey)}` }, body: JSON.stringify({ appName: 'steward', url, functions: [fn(url)] }) });
      expect((await send('https://attacker.example/api/inngest')).status).toBe(400);
      expect((await send(serveUrl)).status).toBe(200);
    } finally {
      await loose.close();
    }
  });
});
