import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { logger } from '@/server/logger';
import { resolveAllowed } from '../url-guard';

/*
 * Every request of every workspace browser leaves through this loopback proxy (Chromium's
 * --proxy-server; Playwright also routes loopback through it). It resolves the host itself,
 * checks each address with the URL guard and connects only to an accepted one, so redirects,
 * subresources, WebSockets and names that re-resolve to a private address after a check are
 * all held to the same rule. HTTPS passes through as an opaque CONNECT tunnel: nothing is
 * decrypted. One proxy per process serves every user: the rule does not depend on the user.
 */

const HOP_BY_HOP = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);

function refuse(res: http.ServerResponse, reason: string) {
  res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`Blocked by the Steward workspace: ${reason}\n`);
}

/** `host:port` of a CONNECT request, IPv6 in brackets. */
function splitAuthority(authority: string): { host: string; port: number } | null {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(authority) ?? /^([^:]+):(\d+)$/.exec(authority);
  if (!m) return null;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1]!, port } : null;
}

async function forward(req: http.IncomingMessage, res: http.ServerResponse) {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    return refuse(res, 'not a proxy request');
  }
  if (url.protocol !== 'http:') return refuse(res, `${url.protocol} is not allowed`);
  const allowed = await resolveAllowed(url.hostname);
  if (!allowed.ok) return refuse(res, allowed.reason);
  const headers: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
  headers.host = url.host;
  const upstream = http.request(
    { host: allowed.addresses[0], port: Number(url.port || 80), method: req.method, path: url.pathname + url.search, headers, setHost: false },
    (up) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
      res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
      up.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end();
  });
  req.pipe(upstream);
}

async function tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer) {
  client.on('error', () => client.destroy());
  const target = splitAuthority(req.url ?? '');
  if (!target) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  const allowed = await resolveAllowed(target.host);
  if (!allowed.ok) return client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nBlocked by the Steward workspace: ${allowed.reason}\n`);
  const upstream = net.connect({ host: allowed.addresses[0], port: target.port });
  let connected = false;
  upstream.on('connect', () => {
    connected = true;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => {
    if (client.writable && !connected) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    else client.destroy();
  });
  client.on('close', () => upstream.destroy());
}

let running: Promise<{ url: string; close: () => Promise<void> }> | undefined;

/** The process's egress proxy, started on first use. */
export function egressProxy(): Promise<{ url: string; close: () => Promise<void> }> {
  running ??= new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      forward(req, res).catch((e: unknown) => {
        logger.warn({ err: e }, 'workspace proxy request failed');
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
    });
    server.on('connect', (req, socket: net.Socket, head) => {
      tunnel(req, socket, head).catch(() => socket.destroy());
    });
    server.on('clientError', (_e, socket) => socket.destroy());
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            running = undefined;
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
  return running;
}
