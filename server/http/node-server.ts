import http from 'node:http';
import { frontDecision } from './forwarded';
import { API_PREFIX, type ApiCore } from './kernel';
import { publicOrigin } from './public-origin';
import { TextReply } from './reply';
import type { ApiRequest, RequestInfo } from './request';
import { HSTS } from './response-headers';

/**
 * Paths under /api the registry does not serve: they have route files of their own (tRPC,
 * Inngest, next-auth). The lean server answers one of them itself when it is given a mount for
 * it (npm start mounts /api/inngest), and hands the others to its fallback (Next.js).
 */
export const OUTSIDE_REGISTRY = ['/api/trpc', '/api/inngest', '/api/auth'];
const MAX_BODY = 10 * 1024 * 1024;
/** File bytes sent to the local store's signed upload URL may be larger than a JSON body. */
const MAX_UPLOAD = Number(process.env.STEWARD_MAX_UPLOAD_BYTES ?? 100 * 1024 * 1024);
const UPLOAD_PATH = /^\/api\/drive-files\/[^/?]+\/content(\?|$)/;

export type Fallback = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;
/** A Web handler the lean server serves at a path of its own, in this process (the Inngest SDK's serve endpoint). */
export type WebHandler = (req: Request, info: RequestInfo) => Promise<Response>;

export type NodeServerOptions = {
  /** What serves everything else: pages, tRPC, auth (Next.js). Without it: 404. */
  fallback?: Fallback;
  /** Web handlers by path (`/api/inngest`): the path itself, and anything under it or with a query. */
  mounts?: Record<string, WebHandler>;
};

const under = (url: string, p: string) => url === p || url.startsWith(p + '/') || url.startsWith(p + '?');

export const servedByKernel = (url: string) => url.startsWith(API_PREFIX + '/') && !OUTSIDE_REGISTRY.some((p) => under(url, p));

/**
 * The lean path: a plain node:http server that hands /api requests straight to the kernel
 * core, its mounts to their Web handlers, and everything else (pages, tRPC, auth) to Next.js.
 * It builds no Web Request or Response per API call: profiling showed their streams as a large
 * share of the per-request cost. Streamed answers are written as they are produced.
 */
export function createNodeServer(api: ApiCore, options: NodeServerOptions = {}): http.Server {
  const mounts = Object.entries(options.mounts ?? {});
  return http.createServer((req, res) => {
    const url = req.url ?? '/';
    // A loop, not find(): no closure per request.
    for (const [p, handler] of mounts) if (under(url, p)) return void serveMount(handler, req, res);
    if (!servedByKernel(url)) {
      if (options.fallback) return void options.fallback(req, res);
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      return;
    }
    void serveApi(api, req, res);
  });
}

/** Node's request headers (already lower-cased) seen through the two methods the kernel uses; a class, so a request makes no closures for it. */
class HeaderBag {
  constructor(private readonly headers: http.IncomingHttpHeaders) {}
  get(name: string): string | null {
    const v = this.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
  has(name: string): boolean {
    return this.headers[name.toLowerCase()] !== undefined;
  }
}

/**
 * The request's body, or null once it passes `max`: reading stops there and the connection is
 * left open, so refuseTooLarge can still answer (ending an async iteration early would destroy
 * the socket and the client would see a reset instead of the 413).
 */
function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      done();
      req.pause();
      resolve(null);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const onClose = () => {
      done();
      reject(new Error('the client went away before its body was read'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** How long a refused client may go on sending before its connection is cut (see refuseTooLarge). */
const LINGER_MS = 5_000;

/** A declared Content-Length over `max` (a chunked body declares none: it is counted as it comes). */
export function declaresMoreThan(req: http.IncomingMessage, max: number): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > max;
}

/**
 * The 413 every body over its limit gets, whoever would have read it: the kernel, a mount, or the
 * pages process behind the forwarder (the same JSON as every API error). What the client still
 * sends is read and dropped, never kept, so it sees the answer rather than a reset; one that goes
 * on sending for LINGER_MS is cut off. When the answer has already begun (a forwarded reply
 * started before the body passed the limit) the connection is cut instead.
 */
export function refuseTooLarge(req: http.IncomingMessage, res: http.ServerResponse, max: number, headers: Record<string, string> = {}) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const lingering = !req.complete && !req.destroyed;
  // Node closes a connection whose client asked for it (Connection: close) as soon as the answer is
  // written, with the body still arriving: the client would see a reset, not the 413. The timer
  // below closes it instead.
  if (lingering) res.shouldKeepAlive = true;
  res.writeHead(413, { ...headers, 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ ok: false, status: 413, error_code: 'payload_too_large', error: `Body larger than ${max} bytes` }));
  if (!lingering) return;
  const cut = setTimeout(() => req.socket.destroy(), LINGER_MS);
  cut.unref();
  const stop = () => clearTimeout(cut);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}

/**
 * Whether the client went away before the answer was complete, and the AbortSignal that says so,
 * made only when a handler asks for it. One listener function for every response (state on the
 * tracker, found through a symbol), so a request allocates no closure for it.
 */
const GONE = Symbol('clientGone');
class ClientGone {
  gone = false;
  controller: AbortController | undefined;
  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort(new Error('the client went away'));
    }
    return this.controller.signal;
  }
}
function onResponseClose(this: http.ServerResponse & { [GONE]?: ClientGone }) {
  const tracker = this[GONE];
  if (!tracker || this.writableFinished) return;
  tracker.gone = true;
  tracker.controller?.abort(new Error('the client went away'));
}
function clientGone(res: http.ServerResponse): ClientGone {
  const tracker = new ClientGone();
  (res as http.ServerResponse & { [GONE]?: ClientGone })[GONE] = tracker;
  // on, not once: a response closes once, and once wraps the listener in a new closure per request.
  res.on('close', onResponseClose);
  return tracker;
}

/** What the kernel reads of a node:http request, its body already read. */
class NodeApiRequest implements ApiRequest {
  /** The path only: the kernel puts it on the configured public origin, never on the Host header. */
  readonly url: string;
  readonly headers: ApiRequest['headers'];
  constructor(
    readonly method: string,
    req: http.IncomingMessage,
    private readonly bytes: Buffer,
    private readonly gone: ClientGone,
  ) {
    this.url = req.url ?? '/';
    this.headers = new HeaderBag(req.headers);
  }
  async text() {
    return this.bytes.toString('utf8');
  }
  async arrayBuffer() {
    const b = this.bytes;
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  get signal() {
    return this.gone.signal();
  }
}

const NO_BODY = Buffer.alloc(0);

async function serveApi(api: ApiCore, req: http.IncomingMessage, res: http.ServerResponse) {
  try {
    const method = req.method ?? 'GET';
    const gone = clientGone(res);
    let body: Buffer | null = NO_BODY;
    if (method !== 'GET' && method !== 'HEAD') {
      const max = UPLOAD_PATH.test(req.url ?? '') ? MAX_UPLOAD : MAX_BODY;
      body = declaresMoreThan(req, max) ? null : await readBody(req, max);
      if (body === null) return refuseTooLarge(req, res, max);
    }
    const request = new NodeApiRequest(method, req, body, gone);
    const reply = await api(request, { clientIp: req.socket.remoteAddress ?? 'unknown' });
    if (reply instanceof TextReply) {
      res.writeHead(reply.status, reply.headers);
      res.end(method === 'HEAD' ? undefined : reply.body);
      return;
    }
    await writeResponse(reply, method, res);
  } catch {
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ ok: false, status: 500, error_code: 'server_error', error: 'Unexpected failure' }));
  }
}

/**
 * Writes a Web Response: status and headers at once, then the body chunk by chunk as its stream
 * yields them, waiting for the socket to drain when it is full (a slow reader slows the producer
 * instead of filling memory). When the client goes away the stream is cancelled, which tells
 * its producer to stop.
 */
async function writeResponse(reply: Response, method: string, res: http.ServerResponse, extra: Record<string, string> = {}) {
  const out: Record<string, string | string[]> = { ...extra };
  reply.headers.forEach((v, k) => {
    if (k !== 'set-cookie') out[k] = v;
  });
  const cookies = reply.headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  res.writeHead(reply.status, out);
  if (!reply.body || method === 'HEAD') {
    await reply.body?.cancel();
    res.end();
    return;
  }
  const reader = reply.body.getReader();
  const stop = () => void reader.cancel(new Error('the client went away')).catch(() => {});
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) await drained(res);
    }
    res.end();
  } catch {
    // The producer failed mid-stream: the status is sent, so all that is left is to cut the connection.
    res.destroy();
  } finally {
    res.off('close', stop);
  }
}

/** Resolves when the socket can take more, or is gone. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** A Web handler served on its own, outside createNodeServer (npm start's STEWARD_HTTP=next mode serves the calls between processes so). */
export const serveWebHandler = (handler: WebHandler) => (req: http.IncomingMessage, res: http.ServerResponse) => serveMount(handler, req, res);

/**
 * A mounted Web handler: the request as a Web Request on the public origin (its signal fired
 * when the client goes away), the answer streamed back, with HSTS on https as Steward's front
 * adds it for the Next.js process.
 */
async function serveMount(handler: WebHandler, req: http.IncomingMessage, res: http.ServerResponse) {
  try {
    const method = req.method ?? 'GET';
    const gone = clientGone(res);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    let body: Uint8Array<ArrayBuffer> | null = null;
    if (method !== 'GET' && method !== 'HEAD') {
      // Read whole, as Next.js does for a route handler: the SDK verifies a signature over all of it.
      const bytes = declaresMoreThan(req, MAX_UPLOAD) ? null : await readBody(req, MAX_UPLOAD);
      body = bytes && new Uint8Array(bytes);
      if (body === null) return refuseTooLarge(req, res, MAX_UPLOAD);
    }
    const request = new Request(publicOrigin().origin + (req.url ?? '/'), { method, headers, body, signal: gone.signal() });
    const reply = await handler(request, { clientIp: req.socket.remoteAddress ?? 'unknown' });
    await writeResponse(reply, method, res, frontDecision(req).secure ? { 'strict-transport-security': HSTS } : {});
  } catch (e) {
    // A body the mount could not parse (the Inngest SDK reads it before it checks the signature)
    // is the client's mistake, not the server's.
    const unreadable = e instanceof SyntaxError;
    if (!res.headersSent) res.writeHead(unreadable ? 400 : 500, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify(
        unreadable
          ? { ok: false, status: 400, error_code: 'bad_request', error: 'The body is not valid JSON' }
          : { ok: false, status: 500, error_code: 'server_error', error: 'Unexpected failure' },
      ),
    );
  }
}
