import http from 'node:http';
import type { ApiHandler } from './kernel';
import { API_PREFIX } from './kernel';

/** Paths under /api that Next.js serves itself (tRPC, Inngest, next-auth). */
export const NEXT_OWNED_API = ['/api/trpc', '/api/inngest', '/api/auth'];
const MAX_BODY = 10 * 1024 * 1024;

export type Fallback = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export const servedByKernel = (url: string) =>
  url.startsWith(API_PREFIX + '/') && !NEXT_OWNED_API.some((p) => url === p || url.startsWith(p + '/') || url.startsWith(p + '?'));

/**
 * The lean path: a plain node:http server that hands /api requests straight to the
 * kernel as Web Requests, and everything else (pages, tRPC, Inngest, auth) to Next.js.
 */
export function createNodeServer(api: ApiHandler, fallback?: Fallback): http.Server {
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

async function serveApi(api: ApiHandler, req: http.IncomingMessage, res: http.ServerResponse) {
  try {
    const method = req.method ?? 'GET';
    let body: Buffer | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += chunk.length;
        if (size > MAX_BODY) {
          res.writeHead(413, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ ok: false, status: 413, error_code: 'payload_too_large', error: 'Body larger than 10 MB' }));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      }
      body = Buffer.concat(chunks);
    }
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, { method, headers, body: body ? new Uint8Array(body) : undefined });
    const response = await api(request, { clientIp: req.socket.remoteAddress });
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((v, k) => {
      if (k !== 'set-cookie') out[k] = v;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) out['set-cookie'] = cookies;
    res.writeHead(response.status, out);
    res.end(method === 'HEAD' ? undefined : Buffer.from(await response.arrayBuffer()));
  } catch {
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ ok: false, status: 500, error_code: 'server_error', error: 'Unexpected failure' }));
  }
}
