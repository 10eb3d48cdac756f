import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
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
