import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { endpoints } from '@/server/endpoints';
import { nextRouteHandlers } from '@/server/http/next-routes';
import { newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { sseParser, streamProbe, type StreamRun } from '../helpers/stream-probe';

/**
 * A streamed answer (server-sent events) on both HTTP paths: events reach the client as they are
 * produced, a slow reader holds the producer back, and a client that leaves fires the handler's
 * signal. Order is proven by the probe's gate (tests/helpers/stream-probe.ts), never by timing.
 */
const probe = streamProbe();
const app = useTestServer({ endpoints: [...endpoints, probe.endpoint] });

async function until<T>(fn: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const lastRun = async (before: number): Promise<StreamRun> => until(() => probe.runs.length > before && probe.runs[probe.runs.length - 1], 'the handler to run');

type Events = Array<{ event: string | null; data: unknown }>;

/** GET on the lean server with node:http, so the test decides when to read, pause or hang up. */
function open(path: string, key: string) {
  const url = new URL(app().baseUrl + path);
  const parse = sseParser();
  const events: Events = [];
  let ended = false;
  let hangUp = () => {};
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.get(url, { headers: { Authorization: `Bearer ${key}` } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => events.push(...parse(chunk)));
      res.on('end', () => (ended = true));
      res.on('error', () => {});
      resolve(res);
    });
    req.on('error', reject);
    hangUp = () => req.destroy();
  });
  return { response, events, ended: () => ended, hangUp: () => hangUp() };
}

describe('streaming on the lean path (node:http server)', () => {
  it('delivers each event as it is produced, in order, then ends the stream', async () => {
    const acct = await newAccount(app());
    const before = probe.runs.length;
    const s = open('/_stream-test?count=4', acct.key);
    const res = await s.response;
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-request-id']).toBeTruthy();
    const run = await lastRun(before);

    await until(() => s.events.length >= 1, 'the first event');
    // The first event is here while the handler has not produced the second: nothing buffered the reply.
    expect(run.produced).toEqual([0]);
    expect(s.events[0]).toEqual({ event: 'tick', data: { i: 0 } });

    run.allow(2);
    await until(() => s.events.length >= 2, 'the second event');
    expect(run.produced).toEqual([0, 1]);

    run.allow(4);
    await until(() => s.ended(), 'the end of the stream');
    expect(s.events.map((e) => e.data)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }]);
    expect(run.aborted).toBe(false);
    expect(run.finished).toBe(true);
  });

  it('fires the handler’s signal when the client hangs up, and the producer stops', async () => {
    const acct = await newAccount(app());
    const before = probe.runs.length;
    const s = open('/_stream-test?count=100', acct.key);
    await s.response;
    const run = await lastRun(before);
    await until(() => s.events.length >= 1, 'the first event');

    s.hangUp();
    await until(() => run.aborted, 'the handler’s signal to fire');
    await until(() => run.finished, 'the producer to stop');
    expect(run.produced).toEqual([0]);
  });

  it('a reader that stops reading holds the producer back (backpressure), and hanging up stops it', async () => {
    const acct = await newAccount(app());
    const before = probe.runs.length;
    // 4,000 events of 16 KiB: 64 MiB if nothing held the producer back.
    const count = 4000;
    const s = open(`/_stream-test?count=${count}&size=16384&gated=0`, acct.key);
    const res = await s.response;
    const run = await lastRun(before);
    await until(() => s.events.length >= 1, 'the first event');
    res.pause();
    // Wait until production settles: socket buffers full, the producer waiting for room.
    let last = -1;
    let still = 0;
    await until(() => {
      still = run.produced.length === last ? still + 1 : 0;
      last = run.produced.length;
      return still >= 10 || run.finished;
    }, 'production to settle', 20_000);
    expect(run.finished).toBe(false);
    expect(run.produced.length).toBeLessThan(count / 2);

    s.hangUp();
    await until(() => run.aborted && run.finished, 'the producer to stop');
    expect(run.produced.length).toBeLessThan(count / 2);
  });
});

describe('streaming through the route files (STEWARD_HTTP=next)', () => {
  /** What app/api/_stream-test/route.ts would export: the same factory every generated route file uses. */
  const routeFile = () => nextRouteHandlers([...endpoints, probe.endpoint], () => app().kernel)('/_stream-test');

  async function readEvents(reader: ReadableStreamDefaultReader<Uint8Array>, parse: ReturnType<typeof sseParser>, events: Events, n: number) {
    const decoder = new TextDecoder();
    while (events.length < n) {
      const { done, value } = await reader.read();
      if (done) return true;
      events.push(...parse(decoder.decode(value, { stream: true })));
    }
    return false;
  }

  it('the Response body is a stream the client reads event by event', async () => {
    const acct = await newAccount(app());
    const before = probe.runs.length;
    const res = await routeFile().GET(new Request(`${app().baseUrl}/_stream-test?count=3`, { headers: { Authorization: `Bearer ${acct.key}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const run = await lastRun(before);
    const reader = res.body!.getReader();
    const parse = sseParser();
    const events: Events = [];

    await readEvents(reader, parse, events, 1);
    expect(run.produced).toEqual([0]);
    run.allow(3);
    expect(await readEvents(reader, parse, events, 4)).toBe(true);
    expect(events.map((e) => e.data)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect(run.finished).toBe(true);
  });

  it('aborting the Web Request fires the handler’s signal', async () => {
    const acct = await newAccount(app());
    const before = probe.runs.length;
    const client = new AbortController();
    const res = await routeFile().GET(new Request(`${app().baseUrl}/_stream-test?count=100`, { headers: { Authorization: `Bearer ${acct.key}` }, signal: client.signal }));
    const run = await lastRun(before);
    const events: Events = [];
    await readEvents(res.body!.getReader(), sseParser(), events, 1);
    expect(run.aborted).toBe(false);

    client.abort();
    await until(() => run.aborted, 'the handler’s signal to fire');
    await until(() => run.finished, 'the producer to stop');
    expect(run.produced).toEqual([0]);
  });
});
