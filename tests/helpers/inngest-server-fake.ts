import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import canonicalize from 'canonicalize';

/**
 * A loopback stand-in for an Inngest server (Inngest Cloud or `inngest start`), for tests of
 * Steward's INNGEST_BASE_URL mode where no Inngest server can run. It speaks both halves of the
 * server's wire protocol as the SDK (inngest 4.x) expects it:
 *
 * - what the SDK calls on the server (it is INNGEST_BASE_URL): `POST /fn/register` (an out-of-band
 *   sync, `Authorization: Bearer <hashed signing key>`), `POST /e/<event key>` (events), and
 *   `POST /v1/checkpoint/<run>/async` (steps checkpointed within a call). Each is recorded.
 * - what the server calls on the app: a signed PUT (sync, in band or out of band), a signed GET
 *   (introspection), a signed POST `?probe=trust`, and the step calls of a run
 *   (`POST <serve url>?fnId=&stepId=`, protocol version 2), driven until the run ends.
 *
 * Signatures are the Inngest server's: `X-Inngest-Signature: t=<unix s>&s=<hex>`, HMAC-SHA256
 * keyed by the signing key without its `signkey-<env>-` prefix, over the canonical JSON body
 * (RFC 8785) followed by the timestamp. The app's answers are signed the same way, and checked.
 */

export type Registration = { url: string; appName: string; functions: { id: string; name?: string; triggers: unknown[]; steps: Record<string, { runtime?: { url?: string } }> }[]; [k: string]: unknown };
export type ReceivedEvent = { name: string; data: Record<string, unknown>; [k: string]: unknown };
export type Op = { id: string; op: string; name?: string; displayName?: string; data?: unknown; error?: unknown; opts?: unknown };

const stripPrefix = (key: string) => key.replace(/^signkey-\w+-/, '');

/** The signature the Inngest server puts on a request (and the app on its answer). */
export function inngestSignature(body: string, signingKey: string, unixSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${unixSeconds}&s=${createHmac('sha256', stripPrefix(signingKey)).update(body + unixSeconds).digest('hex')}`;
}

/** What the SDK sends as its bearer token: the key's prefix, then the SHA-256 of its hex part. */
export function hashedSigningKey(signingKey: string): string {
  const prefix = /^signkey-\w+-/.exec(signingKey)?.[0] ?? '';
  return prefix + createHash('sha256').update(Buffer.from(stripPrefix(signingKey), 'hex')).digest('hex');
}

function signatureValid(header: string | null, body: string, signingKey: string): boolean {
  const params = new URLSearchParams(header ?? '');
  const t = params.get('t');
  const s = params.get('s') ?? '';
  if (!t || !/^[0-9a-f]{64}$/.test(s)) return false;
  const expected = inngestSignature(body, signingKey, Number(t)).split('&s=')[1]!;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(s, 'hex'));
}

export type InngestServerFake = {
  /** INNGEST_BASE_URL for the app. */
  url: string;
  registrations: Registration[];
  events: ReceivedEvent[];
  checkpoints: { runId: string; body: unknown }[];
  /** Requests the stand-in refused (wrong key or token), by path. */
  refused: string[];
  /** Calls the app's serve endpoint as the Inngest server does; `sign: false` sends no signature. */
  callApp: (serveUrl: string, init: { method: 'GET' | 'PUT' | 'POST'; query?: Record<string, string>; body?: unknown; headers?: Record<string, string>; sign?: boolean | string }) => Promise<{ status: number; body: any; headers: Headers; signedByApp: boolean }>;
  /** Runs one function to its end for `event`, call after call, as the server does; each call's ops are kept. */
  run: (serveUrl: string, fnId: string, event: { name: string; data: Record<string, unknown> }) => Promise<{ output: unknown; calls: { status: number; ops: Op[] }[] }>;
  close: () => Promise<void>;
};

export async function startInngestServerFake(opts: { signingKey: string; eventKey: string }): Promise<InngestServerFake> {
  const registrations: Registration[] = [];
  const events: ReceivedEvent[] = [];
  const checkpoints: { runId: string; body: unknown }[] = [];
  const refused: string[] = [];
  const bearerOk = (h: string | undefined) => h === `Bearer ${hashedSigningKey(opts.signingKey)}`;

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const refuse = () => {
        refused.push(path);
        send(401, { error: 'unauthorized' });
      };
      if (req.method === 'POST' && path === '/fn/register') {
        if (!bearerOk(req.headers.authorization)) return refuse();
        registrations.push(JSON.parse(raw));
        return send(200, { ok: true, modified: true });
      }
      const ev = /^\/e\/([^/]+)$/.exec(path);
      if (req.method === 'POST' && ev) {
        if (decodeURIComponent(ev[1]!) !== opts.eventKey) return refuse();
        const list = [JSON.parse(raw)].flat() as ReceivedEvent[];
        events.push(...list);
        return send(200, { ids: list.map((_, i) => `evt-${events.length - list.length + i}`), status: 200 });
      }
      const cp = /^\/v1\/checkpoint\/([^/]+)\/async$/.exec(path);
      if (req.method === 'POST' && cp) {
        if (!bearerOk(req.headers.authorization)) return refuse();
        checkpoints.push({ runId: decodeURIComponent(cp[1]!), body: JSON.parse(raw) });
        return send(200, {});
      }
      send(404, { error: `not served by the stand-in: ${req.method} ${path}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const callApp: InngestServerFake['callApp'] = async (serveUrl, init) => {
    const target = new URL(serveUrl);
    for (const [k, v] of Object.entries(init.query ?? {})) target.searchParams.set(k, v);
    const body = init.body === undefined ? '' : canonicalize(init.body)!;
    const headers: Record<string, string> = { 'x-inngest-server-kind': 'cloud', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...(init.headers ?? {}) };
    if (init.sign !== false) headers['x-inngest-signature'] = inngestSignature(body, typeof init.sign === 'string' ? init.sign : opts.signingKey);
    const res = await fetch(target, { method: init.method, headers, body: init.method === 'GET' ? undefined : body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, body: parsed, headers: res.headers, signedByApp: signatureValid(res.headers.get('x-inngest-signature'), text, opts.signingKey) };
  };

  const run: InngestServerFake['run'] = async (serveUrl, fnId, event) => {
    const runId = `01RUN${Date.now().toString(36).toUpperCase()}`;
    const steps: Record<string, { type: 'data'; data: unknown }> = {};
    const stack: string[] = [];
    const calls: { status: number; ops: Op[] }[] = [];
    let stepId = 'step';
    for (let i = 0; i < 50; i++) {
      const body = {
        version: 2,
        event,
        events: [event],
        steps,
        ctx: { run_id: runId, attempt: 0, max_attempts: 3, disable_immediate_execution: false, use_api: false, stack: { stack, current: stack.length } },
      };
      const r = await callApp(serveUrl, { method: 'POST', query: { fnId, stepId }, body });
      if (r.status === 200) {
        calls.push({ status: 200, ops: [] });
        return { output: r.body, calls };
      }
      if (r.status !== 206 || !Array.isArray(r.body)) throw new Error(`the app answered a step call with ${r.status}: ${JSON.stringify(r.body).slice(0, 500)}`);
      const ops = r.body as Op[];
      calls.push({ status: 206, ops });
      stepId = 'step';
      for (const op of ops) {
        if (op.op === 'RunComplete') return { output: op.data, calls };
        if (op.op === 'StepRun') {
          steps[op.id] = { type: 'data', data: op.data ?? null };
          stack.push(op.id);
        } else if (op.op === 'StepPlanned') stepId = op.id;
        else throw new Error(`the stand-in does not drive ${op.op} ops: ${JSON.stringify(op).slice(0, 300)}`);
      }
    }
    throw new Error('the run did not end within 50 calls');
  };

  return {
    url,
    registrations,
    events,
    checkpoints,
    refused,
    callApp,
    run,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
