import http from 'node:http';
import { frontDecision, headersForNext } from './forwarded';
import { HSTS } from './response-headers';

/**
 * Hands a request to another local HTTP server (Next.js in its own process) and streams the
 * answer back. Host, X-Forwarded-Host/Proto/For carry Steward's decision (forwarded.ts), never
 * the client's claims: Next reads them for its origin and per-IP limits.
 */
export function proxyTo(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const decision = frontDecision(req);
    const headers = headersForNext(req, decision);
    const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent }, (answer) => {
      const out = decision.secure ? { ...answer.headers, 'strict-transport-security': HSTS } : answer.headers;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('The web app is not answering yet; retry in a moment.');
    });
    req.pipe(upstream);
  };
}
