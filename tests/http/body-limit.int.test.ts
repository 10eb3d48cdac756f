import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { ensureNextBuild } from '../helpers/next-build';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';

/*
 * STEWARD_PROXY_BODY_LIMIT_BYTES (spec 5, Limits): the production server (npm start's entry
 * point, pages on: Next.js in its child process behind the kernel) refuses a body over 10 MiB
 * to anything it forwards to the pages process (tRPC, pages) with the API's own 413, before
 * Next reads it: a declared Content-Length is refused at once, a chunked body is counted as it
 * streams. Sent without credentials, 150 MiB each, streamed (never held in this process), while
 * the pages process's resident memory is read from /proc. A body just under the limit still
 * reaches Next and gets Next's own answer.
 */

const MiB = 1024 * 1024;
const LIMIT = 10 * MiB;
const HUGE = 150 * MiB;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let server: ProductionServer;

beforeAll(async () => {
  ensureNextBuild();
  database = await createTestDatabase();
  server = await startProductionServer(database, { STEWARD_PAGES: 'on' });
  // One account: the hosted app (tRPC's context) answers for it, so tRPC reads what it is sent.
  await newAccount(server);
}, 900_000);
afterAll(async () => {
  await server?.kill();
  await database?.drop();
});

/** Every process below `pid` (the pages process and whatever it started). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

/** VmRSS of the pages process tree, in bytes: every process the server started (it starts only Next here). */
function pagesRss(): number {
  const pids = descendants(server.child.pid!);
  expect(pids.length, 'the pages process is running').toBeGreaterThan(0);
  let total = 0;
  for (const pid of pids) {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

type Sent = { status: number | null; body: string; sentBytes: number; error: string | null };

/**
 * POSTs `size` bytes, generated as they are written (64 KiB at a time, waiting when the socket is
 * full), with a Content-Length or chunked. Stops writing once the answer has come or the
 * connection is gone.
 */
function post(urlPath: string, size: number, opts: { declared: boolean; contentType?: string; bytes?: (offset: number, n: number) => Buffer }): Promise<Sent> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { 'content-type': opts.contentType ?? 'application/octet-stream' };
    if (opts.declared) headers['content-length'] = size;
    const req = http.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: urlPath, headers, agent: false });
    let sentBytes = 0;
    let answered = false;
    let status: number | null = null;
    let body = '';
    const finish = (error: string | null) => {
      if (answered && error === null) return;
      answered = true;
      resolve({ status, body, sentBytes, error });
    };
    let responded = false;
    req.on('response', (res) => {
      // An answer before the body is sent (a 413): stop sending, as a browser does.
      responded = true;
      status = res.statusCode ?? null;
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        finish(null);
        req.destroy();
      });
      res.on('error', () => finish(null));
    });
    req.on('error', (e) => {
      if (!answered) finish(status === null ? e.message : null);
    });
    const zeros = Buffer.alloc(64 * 1024);
    const pump = () => {
      while (!responded && !req.destroyed && sentBytes < size) {
        const n = Math.min(zeros.length, size - sentBytes);
        const chunk = opts.bytes ? opts.bytes(sentBytes, n) : zeros.subarray(0, n);
        sentBytes += n;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!responded && sentBytes >= size && !req.writableEnded) req.end();
    };
    pump();
  });
}

const settle = () => new Promise((r) => setTimeout(r, 1500));

describe('bodies forwarded to the pages process', () => {
  it('a body just under the limit reaches Next, which answers it itself', async () => {
    // A JSON body tRPC parses whole: {"token":"rj_never-issued","pad":"aaa…"}, 1 KiB under the limit.
    const size = LIMIT - 1024;
    const head = '{"token":"rj_never-issued","pad":"';
    const tail = '"}';
    const text = (offset: number, n: number) => {
      if (offset >= head.length && offset + n <= size - tail.length) return Buffer.alloc(n, 'a');
      let out = '';
      for (let i = offset; i < offset + n; i++) out += i < head.length ? head[i] : i >= size - tail.length ? tail[i - (size - tail.length)] : 'a';
      return Buffer.from(out);
    };
    const sent = await post('/api/trpc/approvals.reject', size, { declared: true, contentType: 'application/json', bytes: text });
    // tRPC's own answer: the link is not found.
    expect(sent.status, JSON.stringify({ ...sent, body: sent.body.slice(0, 300) })).toBe(404);
    expect(JSON.parse(sent.body).error.data).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a 150 MiB body to tRPC or to a page is refused with the API’s 413, and the pages process does not grow', { timeout: 300_000 }, async () => {
    // Warm the pages process (first renders allocate), then take its size.
    for (const p of ['/sign-in', '/api/trpc/auth.me']) await fetch(`http://127.0.0.1:${server.port}${p}`);
    await settle();
    const before = pagesRss();

    const cases = [
      { path: '/api/trpc/approvals.reject', declared: true },
      { path: '/api/trpc/approvals.reject', declared: false },
      { path: '/sign-in', declared: true },
      { path: '/sign-in', declared: false },
      { path: '/api/auth/callback/email', declared: false },
    ];
    for (const c of cases) {
      const sent = await post(c.path, HUGE, { declared: c.declared, contentType: 'application/json' });
      const what = `${c.path} (${c.declared ? 'Content-Length' : 'chunked'}): ${JSON.stringify({ ...sent, body: sent.body.slice(0, 200) })}\n${server.output().slice(-2000)}`;
      expect(sent.status, what).toBe(413);
      expect(JSON.parse(sent.body), what).toEqual({ ok: false, status: 413, error_code: 'payload_too_large', error: `Body larger than ${LIMIT} bytes` });
      // Refused long before the whole body was sent: at once when declared, past the limit when counted.
      expect(sent.sentBytes, what).toBeLessThan(HUGE);
    }
    await settle();
    const after = pagesRss();
    // Each chunked body reaches Next up to the limit before it is cut (it is forwarded as it
    // streams): tens of MiB at most, where whole bodies grew it by hundreds.
    const grown = after - before;
    expect(grown, `pages RSS ${Math.round(before / MiB)} MiB → ${Math.round(after / MiB)} MiB`).toBeLessThan(64 * MiB);

    // The server still serves pages and the API.
    expect((await fetch(`http://127.0.0.1:${server.port}/sign-in`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
  });

  it('/api answers the same 413 past its own limit', async () => {
    const sent = await post('/api/tasks', 20 * MiB, { declared: false, contentType: 'application/json' });
    expect(sent.status, JSON.stringify(sent)).toBe(413);
    expect(JSON.parse(sent.body)).toEqual({ ok: false, status: 413, error_code: 'payload_too_large', error: `Body larger than ${LIMIT} bytes` });
  });
});
