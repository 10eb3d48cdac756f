import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { applyTimeouts, CONNECT_TIMEOUT_CODE, TOTAL_MS } from '@/server/http/outbound-timeouts';
import { addressAllowed, guardedLookup } from '@/server/http/outbound-url';

/*
 * One request to a text provider's API (Twilio, Sendblue), under the outbound address rule that
 * webhooks follow (spec 5): a private or loopback address is reached only when
 * STEWARD_PROVIDER_ALLOWED_RANGES allows it. Connections are kept alive (a send is on the path of
 * every reply). The answer says whether the request may have reached the provider: a send whose
 * answer was lost must be `unknown`, never `failed`, and never sent again.
 */

export const PROVIDER_ALLOW = 'STEWARD_PROVIDER_ALLOWED_RANGES';
const TIMEOUT_MS = TOTAL_MS.messaging;
const MAX_BODY = 8 * 1024 * 1024;

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

export type ProviderAnswer =
  | { reached: true; status: number; body: Buffer; contentType: string | null; location: string | null }
  /** `reached`: the request may have arrived (no answer came back); false only when it certainly never left. */
  | { reached: boolean; status: null; error: string };

/** Errors raised before a byte could reach the provider. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EOUTBOUNDREFUSED', 'ERR_INVALID_URL', CONNECT_TIMEOUT_CODE]);

export type ProviderRequest = { method: 'GET' | 'POST'; url: URL; headers?: Record<string, string>; body?: string | Buffer | null; timeoutMs?: number };

export function providerRequest(r: ProviderRequest): Promise<ProviderAnswer> {
  return new Promise((resolve) => {
    const host = r.url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is connected to without a lookup: judged here.
    if (net.isIP(host) && !addressAllowed(host, PROVIDER_ALLOW)) {
      return resolve({ reached: false, status: null, error: `refused: ${host} is inside the deployment's network (allow it with ${PROVIDER_ALLOW})` });
    }
    const secure = r.url.protocol === 'https:';
    const payload = r.body ?? undefined;
    let sent = false;
    const req = (secure ? https : http).request(
      r.url,
      {
        method: r.method,
        agent: secure ? agents.https : agents.http,
        lookup: guardedLookup(PROVIDER_ALLOW),
        timeout: r.timeoutMs ?? TIMEOUT_MS,
        headers: { 'User-Agent': 'Steward', ...(r.headers ?? {}), ...(payload !== undefined ? { 'Content-Length': String(Buffer.byteLength(payload)) } : {}) },
      },
      (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_BODY) parts.push(c);
        });
        res.on('end', () =>
          resolve({
            reached: true,
            status: res.statusCode ?? 0,
            body: Buffer.concat(parts),
            contentType: (res.headers['content-type'] as string | undefined) ?? null,
            location: (res.headers.location as string | undefined) ?? null,
          }),
        );
        res.on('error', (e) => resolve({ reached: true, status: null, error: e.message }));
      },
    );
    req.on('socket', (socket) => {
      // Once connected, the request may be read by the provider whatever happens next.
      if (!socket.connecting) sent = true;
      else socket.once('connect', () => (sent = true));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${r.timeoutMs ?? TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' })));
    // Connecting and the whole exchange are bounded too, not only silence on the socket.
    applyTimeouts(req, r.timeoutMs ?? TIMEOUT_MS);
    req.on('error', (e: Error & { code?: string }) => resolve({ reached: sent || !NEVER_SENT.has(e.code ?? ''), status: null, error: e.message }));
    req.end(payload);
  });
}

/** The answer's body as JSON, or null. */
export function jsonOf(a: ProviderAnswer): unknown {
  if (a.status === null) return null;
  try {
    return JSON.parse(a.body.toString('utf8'));
  } catch {
    return null;
  }
}
