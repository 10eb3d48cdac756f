import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localFetch, registerLocal, type LocalRequest } from '@/server/executor/local-transport';

let server: http.Server;
let origin: string;
beforeAll(async () => {
  server = http.createServer((req, res) => res.end(`network ${req.method} ${req.url}`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('in-process delivery (local-transport)', () => {
  it('answers a registered base in-process with what the request carried, and sends anything else to the network', async () => {
    const seen: Array<{ method: string; url: string; auth: string | null; multi: string | null; body: string }> = [];
    const undo = registerLocal(`${origin}/api/inngest/`, async (req: LocalRequest) => {
      seen.push({ method: req.method, url: req.url, auth: req.header('Authorization'), multi: req.header('x-multi'), body: await req.text() });
      return new Response('local', { status: 201 });
    });
    try {
      const plain = await localFetch(`${origin}/api/inngest?fnId=f`, { method: 'post', headers: { authorization: 'Bearer k' }, body: '{"a":1}' });
      expect([plain.status, await plain.text()]).toEqual([201, 'local']);
      const listed = await localFetch(new URL(`${origin}/api/inngest`), { method: 'PUT', headers: [['X-Multi', 'a'], ['x-multi', 'b']] });
      expect(listed.status).toBe(201);
      const asHeaders = await localFetch(`${origin}/api/inngest`, { headers: new Headers({ authorization: 'Bearer h' }) });
      expect(asHeaders.status).toBe(201);
      expect(seen).toEqual([
        { method: 'POST', url: `${origin}/api/inngest?fnId=f`, auth: 'Bearer k', multi: null, body: '{"a":1}' },
        { method: 'PUT', url: `${origin}/api/inngest`, auth: null, multi: 'a, b', body: '' },
        { method: 'GET', url: `${origin}/api/inngest`, auth: 'Bearer h', multi: null, body: '' },
      ]);
      // A longer path that merely starts like the base is not the base.
      const other = await localFetch(`${origin}/api/inngestx`, { method: 'POST', body: 'x' });
      expect(await other.text()).toBe('network POST /api/inngestx');
    } finally {
      undo();
    }
    expect(await (await localFetch(`${origin}/api/inngest`)).text()).toBe('network GET /api/inngest');
  });

  it('gives a handler that needs one a Web Request with the body, the headers and the Host the socket would have carried', async () => {
    let got: Request | null = null;
    let body = '';
    const undo = registerLocal(origin, async (req) => {
      got = req.request();
      body = await got.text();
      return new Response(null, { status: 204 });
    });
    try {
      const res = await localFetch(new Request(`${origin}/e/key`, { method: 'POST', body: 'payload', headers: { 'x-one': '1' } }));
      expect(res.status).toBe(204);
    } finally {
      undo();
    }
    const req = got as Request | null;
    expect(req?.method).toBe('POST');
    expect(req?.headers.get('x-one')).toBe('1');
    expect(req?.headers.get('host')).toBe(new URL(origin).host);
    expect(body).toBe('payload');
  });
});

describe('plainProcessEnv', () => {
  it('keeps every variable, takes assignments, and hands them to child processes', () => {
    const script = `
      import { plainProcessEnv } from ${JSON.stringify(path.resolve('server/process-env.ts'))};
      import { execFileSync } from 'node:child_process';
      const before = { ...process.env };
      plainProcessEnv();
      plainProcessEnv();
      process.env.STEWARD_PLAIN_ENV_CHECK = 'set after';
      const child = execFileSync('sh', ['-c', 'printf %s "$STEWARD_PLAIN_ENV_CHECK/$KEPT"'], { encoding: 'utf8' });
      const same = Object.entries(before).every(([k, v]) => process.env[k] === v);
      process.stdout.write(JSON.stringify({ plain: Object.getPrototypeOf(process.env) === Object.prototype, same, child }));`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, KEPT: 'kept' }, encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ plain: true, same: true, child: 'set after/kept' });
  });
});
