import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createStewardClient, StewardError } from '@/client/index';

type Answer = { status: number; headers?: Record<string, string>; body: unknown };
const servers: { close: () => void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A loopback server answering the scripted answers in turn (the last one repeats), recording what came. */
async function scripted(answers: Answer[]) {
  const seen: { method: string; url: string; at: number; body: string; auth: string | undefined }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, at: Date.now(), body, auth: req.headers.authorization });
      const a = answers[Math.min(seen.length - 1, answers.length - 1)];
      res.writeHead(a.status, { 'Content-Type': 'application/json', 'X-Request-Id': `req-${seen.length}`, ...a.headers });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => server.close() });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, seen };
}

const me = { accountId: 'acc_1', orgId: null, userId: null, scopes: [] };
const rateLimited: Answer = { status: 429, headers: { 'Retry-After': '1' }, body: { ok: false, error: 'Rate limit of 50 writes per minute exceeded', retryAfter: 0 } };
const unavailable: Answer = { status: 503, body: { ok: false, status: 503, error_code: 'not_ready', error: 'starting' } };

describe('retries', () => {
  it('waits the Retry-After of a 429, then succeeds (and resends the same request with its key)', async () => {
    const s = await scripted([rateLimited, { status: 200, body: me }]);
    const steward = createStewardClient({ baseUrl: s.baseUrl, apiKey: 'ak_live_test' });
    expect(await steward.GET('/me')).toEqual(me);
    expect(s.seen).toHaveLength(2);
    expect(s.seen[1].at - s.seen[0].at).toBeGreaterThanOrEqual(950);
    expect(s.seen.map((r) => r.auth)).toEqual(['Bearer ak_live_test', 'Bearer ak_live_test']);
  });

  it('backs off exponentially on 503 twice, then succeeds', async () => {
    const s = await scripted([unavailable, unavailable, { status: 200, body: me }]);
    const waits: number[] = [];
    const steward = createStewardClient({
      baseUrl: s.baseUrl,
      apiKey: 'ak_live_test',
      retry: { baseDelayMs: 100, maxDelayMs: 10_000 },
      sleep: async (ms) => void waits.push(ms),
    });
    expect(await steward.GET('/me')).toEqual(me);
    expect(s.seen).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it('resends a POST after 429 or 503 (nothing was done) but not after a 500, and gives up after the retries', async () => {
    const post = await scripted([rateLimited, unavailable, { status: 201, body: { ok: true } }]);
    const fast = { retry: { baseDelayMs: 1 }, sleep: async () => undefined };
    const steward = createStewardClient({ baseUrl: post.baseUrl, apiKey: 'k', ...fast });
    await steward.POST('/users/provision', { body: { email: 'a@example.com' } });
    expect(post.seen.map((r) => r.body)).toEqual(Array(3).fill(JSON.stringify({ email: 'a@example.com' })));

    const failed = await scripted([{ status: 500, body: { ok: false, status: 500, error_code: 'server_error', error: 'Unexpected failure' } }]);
    const once = createStewardClient({ baseUrl: failed.baseUrl, apiKey: 'k', ...fast });
    const err = await once.POST('/users/provision', { body: { email: 'a@example.com' } }).catch((e) => e);
    expect(err).toBeInstanceOf(StewardError);
    expect(err).toMatchObject({ status: 500, code: 'server_error', requestId: 'req-1' });
    expect(failed.seen).toHaveLength(1);
    // A GET is safe to repeat: the first try and three retries.
    await expect(once.GET('/me')).rejects.toMatchObject({ status: 500 });
    expect(failed.seen).toHaveLength(5);
  });

  it('retries a POST whose connection was never made, and throws the network error in the end', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const waits: number[] = [];
    const steward = createStewardClient({ baseUrl: `http://127.0.0.1:${port}/api`, apiKey: 'k', sleep: async (ms) => void waits.push(ms) });
    await expect(steward.POST('/users/provision', { body: { email: 'a@example.com' } })).rejects.toThrow('fetch failed');
    expect(waits).toHaveLength(3);
  });

  it('gives a 429 back at once when Retry-After is longer than it will wait', async () => {
    const s = await scripted([{ ...rateLimited, headers: { 'Retry-After': '3600' } }]);
    const steward = createStewardClient({ baseUrl: s.baseUrl, apiKey: 'k' });
    const err = await steward.GET('/me').catch((e) => e);
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 3600 });
    expect(s.seen).toHaveLength(1);
  });
});
