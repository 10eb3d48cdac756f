import type http from 'node:http';
import { clientAddress, originForHost, publicOrigin, requestHost } from './public-origin';
import { HSTS } from './response-headers';

/** Forwarding headers a client may send; only Steward's own decision reaches Next.js. */
const CLIENT_FORWARDING = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip'];

const bag = (headers: http.IncomingHttpHeaders): Pick<Headers, 'get'> => ({
  get: (name) => {
    const v = headers[name];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  },
});

export type FrontDecision = { headers: Record<string, string>; secure: boolean };

/**
 * What Next.js (pages, tRPC, next-auth) is told about a request: the host it names and
 * that host's scheme (public-origin.ts), and the client's address. Next.js and next-auth read
 * these headers, and Next fills in absent ones from the connection (x-forwarded-proto: http
 * behind a TLS proxy), so every one is set here from the same decision the kernel makes.
 */
export function frontDecision(req: http.IncomingMessage): FrontDecision {
  const headers = bag(req.headers);
  const host = requestHost(headers) ?? publicOrigin().host;
  const { secure } = originForHost(host);
  return {
    secure,
    headers: {
      host,
      'x-forwarded-host': host,
      'x-forwarded-proto': secure ? 'https' : 'http',
      'x-forwarded-for': clientAddress(headers, req.socket.remoteAddress ?? 'unknown'),
    },
  };
}

/** The request headers to send on to Next.js: the client's, minus its forwarding claims, plus the decision. */
export function headersForNext(req: http.IncomingMessage, decision: FrontDecision): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = { ...req.headers };
  for (const h of CLIENT_FORWARDING) delete out[h];
  return { ...out, ...decision.headers };
}

/** For Next.js in this process: rewrites the request's headers in place and adds HSTS on https. */
export function applyFront(req: http.IncomingMessage, res: http.ServerResponse) {
  const decision = frontDecision(req);
  for (const h of CLIENT_FORWARDING) delete req.headers[h];
  Object.assign(req.headers, decision.headers);
  if (decision.secure) res.setHeader('Strict-Transport-Security', HSTS);
}
