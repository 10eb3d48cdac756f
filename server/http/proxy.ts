import http from 'node:http';
import { frontDecision, headersForNext } from './forwarded';
import { declaresMoreThan, refuseTooLarge } from './node-server';
import { HSTS } from './response-headers';

/** STEWARD_PROXY_BODY_LIMIT_BYTES' default: what a page, tRPC call or sign-in ever needs, with room to spare. */
const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

/** The largest request body forwarded to the pages process (spec 5, Limits). */
export function proxyBodyLimit(env: Record<string, string | undefined> = process.env): number {
  const raw = env.STEWARD_PROXY_BODY_LIMIT_BYTES;
  const n = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_BODY_LIMIT;
}

/**
 * Hands a request to another local HTTP server (Next.js in its own process) and streams the
 * answer back. Host, X-Forwarded-Host/Proto/For carry Steward's decision (forwarded.ts), never
 * the client's claims: Next reads them for its origin and per-IP limits.
 *
 * Bodies are held to `maxBody` (STEWARD_PROXY_BODY_LIMIT_BYTES) here, before Next sees them: Next
 * reads a route's or action's body whole into memory, and an unauthenticated 150 MiB POST grew the
 * pages process by half a gigabyte for good. A declared Content-Length over the limit is refused
 * before anything is forwarded; a body without one (chunked) is counted as it streams through,
 * and the forward is aborted the moment it passes the limit. Either way the client gets the
 * API's 413, or, if Next's answer had already begun, a cut connection.
 */
export function proxyTo(port: number, maxBody = proxyBodyLimit()) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const decision = frontDecision(req);
    const front: Record<string, string> = decision.secure ? { 'strict-transport-security': HSTS } : {};
    if (declaresMoreThan(req, maxBody)) return refuseTooLarge(req, res, maxBody, front);

    let refused = false;
    const headers = headersForNext(req, decision);
    const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent }, (answer) => {
      if (refused) return void answer.resume();
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, { ...answer.headers, ...front });
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (refused) return;
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('The web app is not answering yet; retry in a moment.');
    });

    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBody) {
        // Next gets an aborted request and none of the rest; the client gets the 413.
        refused = true;
        req.off('data', onData);
        upstream.destroy();
        return refuseTooLarge(req, res, maxBody, front);
      }
      if (!upstream.write(chunk)) {
        req.pause();
        upstream.once('drain', () => req.resume());
      }
    };
    req.on('data', onData);
    req.once('end', () => {
      if (!refused) upstream.end();
    });
    // The client went away mid-body: Next is not left waiting for the rest.
    req.once('close', () => {
      if (!req.complete && !refused) upstream.destroy();
    });
  };
}
