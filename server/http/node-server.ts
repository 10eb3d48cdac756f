import http from 'node:http';
import { API_PREFIX, TextReply, type ApiCore, type ApiRequest } from './kernel';

/** Paths under /api that Next.js serves itself (tRPC, Inngest, next-auth). */
export const NEXT_OWNED_API = ['/api/trpc', '/api/inngest', '/api/auth'];
const MAX_BODY = 10 * 1024 * 1024;
/** File bytes sent to the local store's signed upload URL may be larger than a JSON body. */
const MAX_UPLOAD = Number(process.env.STEWARD_MAX_UPLOAD_BYTES ?? 100 * 1024 * 1024);
const UPLOAD_PATH = /^\/api\/drive-files\/[^/?]+\/content(\?|$)/;

export type Fallback = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export const servedByKernel = (url: string) =>
  url.startsWith(API_PREFIX + '/') && !NEXT_OWNED_API.some((p) => url === p || url.startsWith(p + '/') || url.startsWith(p + '?'));

/**
 * The lean path: a plain node:http server that hands /api requests straight to the
 * kernel core, and everything else (pages, tRPC, Inngest, auth) to Next.js. It builds no
 * Web Request or Response per call: profiling showed their streams as a large share of
 * the per-request cost.
 */
export function createNodeServer(api: ApiCore, fallback?: Fallback): http.Server {
  return http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (!servedByKernel(url)) {
      if (fallback) return void fallback(req, res);
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      return;
    }
    void serveApi(api, req, res);
  });
}

/** Node's request headers (already lower-cased) seen through the two methods the kernel uses. */
function headerBag(req: http.IncomingMessage): ApiRequest['headers'] {
  return {
    get: (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
    has: (name: string) => req.headers[name.toLowerCase()] !== undefined,
  };
}

async function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function serveApi(api: ApiCore, req: http.IncomingMessage, res: http.ServerResponse) {
  try {
    const method = req.method ?? 'GET';
    let body: Buffer | null = Buffer.alloc(0);
    if (method !== 'GET' && method !== 'HEAD') {
      const max = UPLOAD_PATH.test(req.url ?? '') ? MAX_UPLOAD : MAX_BODY;
      body = await readBody(req, max);
      if (body === null) {
        res.writeHead(413, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ ok: false, status: 413, error_code: 'payload_too_large', error: `Body larger than ${max} bytes` }));
        req.destroy();
        return;
      }
    }
    const bytes = body;
    const request: ApiRequest = {
      method,
      // The path only: the kernel puts it on the configured public origin, never on the Host header.
      url: req.url ?? '/',
      headers: headerBag(req),
      text: async () => bytes.toString('utf8'),
      arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    };
    const reply = await api(request, { clientIp: req.socket.remoteAddress ?? 'unknown' });
    if (reply instanceof TextReply) {
      res.writeHead(reply.status, reply.headers);
      res.end(method === 'HEAD' ? undefined : reply.body);
      return;
    }
    const out: Record<string, string | string[]> = {};
    reply.headers.forEach((v, k) => {
      if (k !== 'set-cookie') out[k] = v;
    });
    const cookies = reply.headers.getSetCookie();
    if (cookies.length) out['set-cookie'] = cookies;
    res.writeHead(reply.status, out);
    res.end(method === 'HEAD' ? undefined : Buffer.from(await reply.arrayBuffer()));
  } catch {
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ ok: false, status: 500, error_code: 'server_error', error: 'Unexpected failure' }));
  }
}
