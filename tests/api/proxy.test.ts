import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { proxyTo } from '@/server/http/proxy';
import { freePort } from '@/db/embedded';

/** An upstream that answers with what it received, standing in for the Next.js process. */
const upstream = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    res.writeHead(201, { 'Content-Type': 'application/json', 'Set-Cookie': ['a=1; Path=/', 'b=2; Path=/'] });
    res.end(JSON.stringify({ method: req.method, url: req.url, host: req.headers.host, xff: req.headers['x-forwarded-for'], body }));
  });
});
let front: http.Server;
let base = '';

beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  front = http.createServer(proxyTo((upstream.address() as AddressInfo).port));
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => front.close(r));
  await new Promise((r) => upstream.close(r));
});

function send(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

it('forwards method, path, Host and body, and returns status, headers and every cookie', async () => {
  const res = await send('/sign-in?x=1', { method: 'POST', headers: { Host: 'app.example.org', 'Content-Type': 'text/plain' }, body: 'hello' });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ method: 'POST', url: '/sign-in?x=1', host: 'app.example.org', body: 'hello' });
  expect(res.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
});

it('names the connecting client in X-Forwarded-For, ignoring a value the client sent unless TRUST_PROXY=1', async () => {
  expect((await send('/', { headers: { 'X-Forwarded-For': '6.6.6.6' } })).body.xff).toBe('127.0.0.1');
  vi.stubEnv('TRUST_PROXY', '1');
  expect((await send('/', { headers: { 'X-Forwarded-For': '6.6.6.6' } })).body.xff).toBe('6.6.6.6');
  vi.unstubAllEnvs();
});

it('answers 502 while the upstream is not listening', async () => {
  const closed = http.createServer(proxyTo(await freePort()));
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
  const res = await fetch(`http://127.0.0.1:${(closed.address() as AddressInfo).port}/`);
  expect(res.status).toBe(502);
  await new Promise((r) => closed.close(r));
});

describe('the body limit (STEWARD_PROXY_BODY_LIMIT_BYTES)', () => {
  const LIMIT = 64 * 1024;
  /** An upstream that counts what reaches it; `early` answers before reading the body. */
  let seen: { requests: number; bytes: number; aborted: number };
  const counting = (early: boolean) =>
    http.createServer((req, res) => {
      seen.requests++;
      if (early) res.writeHead(200, { 'Content-Type': 'text/plain' }).write('started');
      req.on('data', (c: Buffer) => (seen.bytes += c.length));
      req.on('aborted', () => seen.aborted++);
      req.on('end', () => (early ? res.end() : res.writeHead(200).end(`read ${seen.bytes}`)));
    });

  async function frontFor(early: boolean) {
    const up = counting(early);
    await new Promise<void>((r) => up.listen(0, '127.0.0.1', () => r()));
    const f = http.createServer(proxyTo((up.address() as AddressInfo).port, LIMIT));
    await new Promise<void>((r) => f.listen(0, '127.0.0.1', () => r()));
    const close = async () => {
      f.closeAllConnections();
      up.closeAllConnections();
      await new Promise((r) => f.close(r));
      await new Promise((r) => up.close(r));
    };
    return { port: (f.address() as AddressInfo).port, close };
  }

  /** Streams `size` bytes (declared or chunked), stopping once an answer arrives. */
  function post(port: number, size: number, declared: boolean) {
    return new Promise<{ status: number | null; body: string; error: string | null }>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/trpc/x', agent: false, headers: declared ? { 'content-length': size } : {} });
      let status: number | null = null;
      let body = '';
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        status = res.statusCode ?? null;
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status, body, error: null }));
        res.on('error', (e) => resolve({ status, body, error: e.message }));
      });
      req.on('error', (e) => resolve({ status, body, error: e.message }));
      const chunk = Buffer.alloc(8 * 1024);
      let sent = 0;
      const pump = () => {
        while (!answered && !req.destroyed && sent < size) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered && sent >= size) req.end();
      };
      pump();
    });
  }

  const TOO_LARGE = { ok: false, status: 413, error_code: 'payload_too_large', error: `Body larger than ${LIMIT} bytes` };

  it('a declared Content-Length over the limit is answered 413 without reaching the upstream', async () => {
    seen = { requests: 0, bytes: 0, aborted: 0 };
    const f = await frontFor(false);
    const res = await post(f.port, LIMIT * 20, true);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual(TOO_LARGE);
    expect(seen.requests).toBe(0);
    await f.close();
  });

  it('a chunked body is counted: past the limit the upstream request is aborted and the client gets 413', async () => {
    seen = { requests: 0, bytes: 0, aborted: 0 };
    const f = await frontFor(false);
    const res = await post(f.port, LIMIT * 20, false);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual(TOO_LARGE);
    await vi.waitFor(() => expect(seen.aborted).toBe(1));
    expect(seen.bytes).toBeLessThanOrEqual(LIMIT);
    await f.close();
  });

  it('a body at the limit goes through whole, declared or chunked', async () => {
    for (const declared of [true, false]) {
      seen = { requests: 0, bytes: 0, aborted: 0 };
      const f = await frontFor(false);
      const res = await post(f.port, LIMIT, declared);
      expect(res).toEqual({ status: 200, body: `read ${LIMIT}`, error: null });
      await f.close();
    }
  });

  it('when the upstream already answered, a body passing the limit cuts the connection (a status cannot change any more)', async () => {
    seen = { requests: 0, bytes: 0, aborted: 0 };
    const f = await frontFor(true);
    // The upstream answers on the first bytes; the rest is sent after its answer has begun.
    const res = await new Promise<{ status: number | null; error: string | null }>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: f.port, method: 'POST', path: '/', agent: false });
      let status: number | null = null;
      req.on('response', (r) => {
        status = r.statusCode ?? null;
        pump();
        r.resume();
        r.on('error', (e) => resolve({ status, error: e.message }));
        r.on('end', () => resolve({ status, error: null }));
        r.on('close', () => resolve({ status, error: 'closed' }));
      });
      req.on('error', (e) => resolve({ status, error: e.message }));
      const chunk = Buffer.alloc(8 * 1024);
      let sent = 0;
      const pump = () => {
        while (!req.destroyed && sent < LIMIT * 20) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!req.destroyed) req.end();
      };
      req.write(Buffer.alloc(1024));
    });
    expect(res.status).toBe(200);
    expect(res.error).not.toBeNull();
    await vi.waitFor(() => expect(seen.aborted).toBe(1));
    await f.close();
  });
});
