import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { AppError } from './errors';

/*
 * Calls between the Steward processes of one deployment (spec document 6, Many machines): each
 * process that runs workspaces publishes where the others reach it (STEWARD_NODE_URL), and every
 * call between processes is signed with STEWARD_NODE_SECRET. The signature covers the method,
 * the path with its query, the body and a timestamp (accepted within a minute), as
 * `X-Steward-Node-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`. A request that carries any
 * X-Steward-Node-* header it cannot prove is refused, never served as an ordinary one: a client
 * cannot pass for a process. Use a private network between processes (or https in the URL): the
 * signature proves who sent a call, it does not hide what it carries.
 */

/** Where the calls between processes are served (outside /api: they are not part of the public API). */
export const NODE_PATH = '/_steward/node';
export const NODE_SIGNATURE = 'x-steward-node-signature';
/** Every header of this family is Steward's own: a client never sets one that is believed. */
const NODE_HEADER_PREFIX = 'x-steward-node-';
const MAX_SKEW_S = 60;
/** How long connecting to another process may take before it counts as unreachable. */
const CONNECT_TIMEOUT_MS = 3_000;

export type NodeLink = { url: string; secret: string };

/**
 * STEWARD_NODE_URL and STEWARD_NODE_SECRET, or null when this process does not take part (no
 * STEWARD_NODE_URL: one process alone). A URL without a secret, or a short secret, is a
 * configuration error: it throws, so the process stops at start rather than serving unsigned calls.
 */
export function nodeLinkConfig(env: Record<string, string | undefined> = process.env): NodeLink | null {
  const raw = env.STEWARD_NODE_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`STEWARD_NODE_URL is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('STEWARD_NODE_URL must be an http or https URL');
  const secret = env.STEWARD_NODE_SECRET ?? '';
  if (secret.length < 32) throw new Error('STEWARD_NODE_URL is set: STEWARD_NODE_SECRET must be set too, the same in every process, at least 32 characters');
  return { url: url.origin, secret };
}

const mac = (secret: string, t: number, method: string, target: string, body: string) =>
  createHmac('sha256', secret).update(`${t}\n${method.toUpperCase()}\n${target}\n`).update(body).digest('hex');

/** The signature header's value for a call (`target`: path and query). */
export function signNodeCall(secret: string, method: string, target: string, body = '', now = Date.now()): string {
  const t = Math.floor(now / 1000);
  return `t=${t},v1=${mac(secret, t, method, target, body)}`;
}

/** Whether `header` proves the call was made by a process holding the secret, within the last minute. */
export function verifyNodeCall(secret: string, header: string | null | undefined, method: string, target: string, body = '', now = Date.now()): boolean {
  const m = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(now / 1000 - t) > MAX_SKEW_S) return false;
  const expected = Buffer.from(mac(secret, t, method, target, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

/** Whether a request claims to come from another process (any X-Steward-Node-* header). */
export function claimsNode(headers: http.IncomingHttpHeaders | Headers): boolean {
  if (headers instanceof Headers) {
    for (const k of headers.keys()) if (k.startsWith(NODE_HEADER_PREFIX)) return true;
    return false;
  }
  return Object.keys(headers).some((k) => k.startsWith(NODE_HEADER_PREFIX));
}

/**
 * The other process could not be reached at all: nothing was sent, so nothing happened there.
 * `refused` (the connection was refused) means no process listens at that address any more.
 */
export class NodeUnreachable extends Error {
  constructor(
    readonly url: string,
    readonly refused: boolean,
    cause?: unknown,
  ) {
    super(`the Steward process at ${url} could not be reached`, { cause });
  }
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const cutOff = (cause: string) => new AppError(503, 'node_call_failed', 'The call to another Steward process was cut off; retry', { cause });

/**
 * A signed call to another process: POSTs `body` as JSON to `NODE_PATH/<op>` and answers its JSON.
 * An error the other process answered comes back as the same AppError (status, code, message,
 * details). A process that cannot be reached throws NodeUnreachable (nothing was sent); a call cut
 * off after it was sent, or not answered within `timeoutMs`, throws 503 `node_call_failed` (it may
 * or may not have happened there). Each call has a connection of its own (no keep-alive), so a
 * reset always means the call itself was cut, never a stale pooled socket.
 */
export function callNode<T>(link: NodeLink, targetUrl: string, op: string, body: unknown, timeoutMs: number): Promise<T> {
  const payload = JSON.stringify(body);
  const target = `${NODE_PATH}/${op}`;
  const url = new URL(target, targetUrl);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<T>((resolve, reject) => {
    let connected = false;
    const req = client.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), [NODE_SIGNATURE]: signNodeCall(link.secret, 'POST', target, payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () => undefined);
        res.on('end', () => {
          clearTimeout(timer);
          let parsed: { ok?: boolean; value?: T; status?: number; error_code?: string; error?: string; details?: Record<string, unknown> };
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            return reject(cutOff(`answered ${res.statusCode} without JSON`));
          }
          if (res.statusCode === 200 && parsed.ok) return resolve(parsed.value as T);
          reject(new AppError(parsed.status ?? res.statusCode ?? 503, parsed.error_code ?? 'node_call_failed', parsed.error ?? 'Another Steward process refused the call', parsed.details ?? {}));
        });
      },
    );
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: connected ? 'ETIMEDOUT' : 'ECONNTIMEOUT' })), timeoutMs);
    req.once('socket', (s) => {
      const connectTimer = setTimeout(() => {
        if (!connected) req.destroy(Object.assign(new Error('connect timeout'), { code: 'ECONNTIMEOUT' }));
      }, CONNECT_TIMEOUT_MS);
      s.once('connect', () => {
        connected = true;
        clearTimeout(connectTimer);
      });
      s.once('close', () => clearTimeout(connectTimer));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (!connected || UNREACHABLE.has(e.code ?? '')) return reject(new NodeUnreachable(targetUrl, e.code === 'ECONNREFUSED', e));
      reject(cutOff(e.code ?? e.message));
    });
    req.end(payload);
  });
}

/**
 * Serves the signed calls other processes make: a Web handler for NODE_PATH. `dispatch` gets the
 * operation (the path after NODE_PATH) and the parsed body, and answers a JSON value; an AppError
 * it throws goes back as such. Anything not signed with the secret is refused with 401.
 */
export function serveNodeCalls(link: NodeLink, dispatch: (op: string, body: unknown) => Promise<unknown>, onFailure?: (err: unknown) => void) {
  const json = (status: number, value: unknown) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const target = url.pathname + url.search;
    const body = req.method === 'POST' ? await req.text() : '';
    if (req.method !== 'POST' || !url.pathname.startsWith(NODE_PATH + '/') || !verifyNodeCall(link.secret, req.headers.get(NODE_SIGNATURE), req.method, target, body)) {
      return json(401, { ok: false, status: 401, error_code: 'unauthorized', error: 'Calls between Steward processes must be signed with STEWARD_NODE_SECRET' });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return json(400, { ok: false, status: 400, error_code: 'bad_request', error: 'The body is not valid JSON' });
    }
    try {
      const value = await dispatch(url.pathname.slice(NODE_PATH.length + 1), parsed);
      return json(200, { ok: true, value: value ?? null });
    } catch (e) {
      if (e instanceof AppError) return json(e.status, { ok: false, status: e.status, error_code: e.code, error: e.message, details: e.extra });
      onFailure?.(e);
      return json(500, { ok: false, status: 500, error_code: 'server_error', error: 'Unexpected failure' });
    }
  };
}

/**
 * Hands a WebSocket upgrade to another process: the request line and headers as they came (Host
 * included, so the other process sees what the client asked), plus the signature over the
 * method and path, then the two sockets joined. Resolves once the other process answered the
 * upgrade (whatever its answer, which the client gets as it is); rejects with NodeUnreachable
 * when it cannot be reached, before anything was sent to the client.
 */
export function forwardUpgrade(link: NodeLink, targetUrl: string, req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const target = req.url ?? '/';
  const url = new URL(target, targetUrl);
  const client = url.protocol === 'https:' ? https : http;
  const headers: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) if (!k.startsWith(NODE_HEADER_PREFIX) && v !== undefined) headers[k] = v;
  headers[NODE_SIGNATURE] = signNodeCall(link.secret, 'GET', target);
  return new Promise<void>((resolve, reject) => {
    let answered = false;
    const upstream = client.request(url, { method: 'GET', headers, agent: false, timeout: CONNECT_TIMEOUT_MS });
    upstream.once('timeout', () => {
      if (!answered) upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT_CONNECT' }));
    });
    upstream.once('upgrade', (res, theirs, theirHead) => {
      answered = true;
      theirs.setTimeout(0);
      socket.write(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n${rawHeaders(res.rawHeaders)}\r\n`);
      if (theirHead.length) socket.write(theirHead);
      if (head.length) theirs.write(head);
      theirs.pipe(socket);
      socket.pipe(theirs);
      const close = () => {
        theirs.destroy();
        socket.destroy();
      };
      theirs.once('close', close);
      socket.once('close', close);
      theirs.on('error', close);
      socket.on('error', close);
      resolve();
    });
    // Refused (an ordinary HTTP answer): passed on as it is, then closed.
    upstream.once('response', (res) => {
      answered = true;
      socket.write(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n${rawHeaders(res.rawHeaders)}\r\n`);
      res.pipe(socket);
      res.once('end', () => socket.end());
      resolve();
    });
    upstream.once('error', (e: NodeJS.ErrnoException) => {
      if (answered) return socket.destroy();
      reject(new NodeUnreachable(targetUrl, e.code === 'ECONNREFUSED', e));
    });
    upstream.end();
  });
}

function rawHeaders(raw: string[]): string {
  let out = '';
  for (let i = 0; i + 1 < raw.length; i += 2) out += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return out;
}
