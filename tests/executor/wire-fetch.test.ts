import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireFetch } from '@/server/executor/wire-fetch';

/*
 * The engine's calls that leave the process (wire-fetch.ts) against a real HTTP server: what the
 * server receives, what the caller reads back, and the cases that must behave as fetch behaves.
 */
type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string; socket: number };
let server: http.Server;
let origin: string;
const seen: Seen[] = [];
const sockets = new WeakMap<object, number>();
let nextSocket = 0;
const used = new Set<number>();
/** Requests on an already used socket that the server drops unanswered, as a server closing an idle kept-alive socket would. */
let dropReused = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (!sockets.has(req.socket)) sockets.set(req.socket, ++nextSocket);
    const socket = sockets.get(req.socket)!;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reused = used.has(socket);
      used.add(socket);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString(), socket });
      if (reused && dropReused > 0) {
        dropReused--;
        req.socket.destroy();
        return;
      }
      if (req.url === '/moved') {
        res.writeHead(307, { location: '/json' }).end();
      } else if (req.url === '/empty') {
        res.writeHead(204).end();
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 2000);
      } else {
        res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
        res.end(JSON.stringify({ got: req.method }));
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the engine calls that leave the process (wire-fetch)', () => {
  it('sends the method, headers and body, and answers a Response the caller reads as from fetch', async () => {
    seen.length = 0;
    const res = await wireFetch(`${origin}/json?x=1`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer k' }, body: '{"a":"é"}' });
    expect([res.status, res.ok, res.headers.get('content-type'), res.headers.get('x-multi')]).toEqual([200, true, 'application/json', 'a, b']);
    expect(await res.json()).toEqual({ got: 'POST' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/json?x=1', body: '{"a":"é"}' });
    expect(seen[0]!.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer k', 'content-length': String(Buffer.byteLength('{"a":"é"}')) });

    // Headers as a Headers object and as pairs (repeated names combined), bytes as the body, a URL as the input.
    await wireFetch(new URL(`${origin}/json`), { method: 'PUT', headers: new Headers({ 'x-one': '1' }), body: new TextEncoder().encode('bytes') });
    await wireFetch(`${origin}/json`, { headers: [['X-Multi', 'a'], ['x-multi', 'b']] });
    expect(seen.slice(1).map((s) => [s.method, s.body, s.headers['x-one'] ?? s.headers['x-multi']])).toEqual([
      ['PUT', 'bytes', '1'],
      ['GET', '', 'a, b'],
    ]);
    // One kept-alive socket carried all three.
    expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
  });

  it('answers error statuses and bodiless ones as fetch does', async () => {
    const missing = await wireFetch(`${origin}/missing`, { method: 'POST', body: '{}' });
    expect([missing.status, missing.ok, await missing.text()]).toEqual([404, false, '{"got":"POST"}']);
    const empty = await wireFetch(`${origin}/empty`);
    expect([empty.status, empty.body, await empty.text()]).toEqual([204, null, '']);
  });

  it('follows a redirect as fetch follows it', async () => {
    seen.length = 0;
    const res = await wireFetch(`${origin}/moved`, { method: 'POST', body: 'again' });
    expect([res.status, await res.json()]).toEqual([200, { got: 'POST' }]);
    expect(seen.map((s) => s.url)).toEqual(['/moved', '/moved', '/json']);
  });

  it('sends a request again when the server dropped the kept-alive socket it went out on, once', async () => {
    await wireFetch(`${origin}/json`);
    seen.length = 0;
    dropReused = 1;
    const res = await wireFetch(`${origin}/json`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(200);
    expect(seen.map((s) => s.body)).toEqual(['x', 'x']);
    expect(seen[0]!.socket).not.toBe(seen[1]!.socket);
    expect(dropReused).toBe(0);
  });

  it('rejects as fetch rejects: a TypeError when nothing answers, an AbortError when aborted', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(wireFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })).rejects.toThrow(TypeError);

    const abort = new AbortController();
    const slow = wireFetch(`${origin}/slow`, { signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    await expect(slow).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('hands what it does not send itself to fetch: a Request, a streamed body', async () => {
    seen.length = 0;
    const viaRequest = await wireFetch(new Request(`${origin}/json`, { method: 'DELETE' }));
    expect(await viaRequest.json()).toEqual({ got: 'DELETE' });
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('streamed')), c.close()) });
    const viaStream = await wireFetch(`${origin}/json`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(viaStream.status).toBe(200);
    expect(seen.map((s) => [s.method, s.body])).toEqual([
      ['DELETE', ''],
      ['POST', 'streamed'],
    ]);
  });
});
