import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { applyTimeouts, TOTAL_MS } from '@/server/http/outbound-timeouts';
import { addressAllowed, guardedLookup } from '@/server/http/outbound-url';
import { ProviderHttpError } from '../providers';

/*
 * One HTTP call to a chat provider (Slack's Web API, the Bot Framework token endpoint, OpenID
 * metadata, a Bot Connector serviceUrl), shared by the Slack and Teams adapters. Spec 5: calls to
 * a provider follow the outbound address rule like webhooks, so an inner address is reachable only
 * when the operator allows its range in STEWARD_PROVIDER_ALLOWED_RANGES; the check runs again at
 * connection time (guardedLookup). A failure says whether the request may have reached the
 * provider (`reached`), so a send whose answer was lost is never reported as not sent.
 */

export const PROVIDER_ALLOW = 'STEWARD_PROVIDER_ALLOWED_RANGES';
const MAX_BODY = 2 * 1024 * 1024;
// Keep-alive: a reply, a progress update and a card update go to the same host in quick succession.
const agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 32 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 32 }) };

export type ProviderAnswer = { status: number; headers: http.IncomingHttpHeaders; text: string };

export type ProviderRequest = {
  method: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** Text (JSON, a form) or bytes (a file's upload). */
  body?: string | Buffer;
  timeoutMs?: number;
};

/** Sends one request; resolves with any HTTP answer, rejects with ProviderHttpError when none came. */
export function providerRequest(provider: string, raw: string | URL, req: ProviderRequest): Promise<ProviderAnswer> {
  const url = typeof raw === 'string' ? new URL(raw) : raw;
  const timeoutMs = req.timeoutMs ?? TOTAL_MS.messaging;
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return reject(new ProviderHttpError(provider, null, 'bad_url', `${provider}: ${url.protocol} is not http or https`, false));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !addressAllowed(host, PROVIDER_ALLOW)) {
      return reject(new ProviderHttpError(provider, null, 'EOUTBOUNDREFUSED', `${provider} at ${host} is inside the deployment's network (allow it with ${PROVIDER_ALLOW})`, false));
    }
    const send = url.protocol === 'https:' ? https.request : http.request;
    const headers: Record<string, string> = { 'User-Agent': 'Steward', ...(req.headers ?? {}) };
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    let sent = false;
    const r = send(url, { method: req.method, headers, lookup: guardedLookup(PROVIDER_ALLOW), agent: agents[url.protocol as 'http:' | 'https:'], timeout: timeoutMs }, (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY) parts.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', (e) => reject(new ProviderHttpError(provider, res.statusCode ?? null, 'answer_cut', `${provider}: the answer was cut: ${e.message}`, true)));
    });
    // A fresh socket has sent nothing until it connects; a reused keep-alive socket is connected already.
    r.on('socket', (s) => {
      if (s.connecting) s.once('connect', () => (sent = true));
      else sent = true;
    });
    r.on('timeout', () => r.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    // Connecting and the whole exchange are bounded too, not only silence on the socket.
    applyTimeouts(r, timeoutMs);
    r.on('error', (e: Error & { code?: string }) => {
      // A reused keep-alive socket is already connected: anything written may have arrived.
      const reached = sent || r.reusedSocket || e.code === 'ETIMEDOUT';
      reject(new ProviderHttpError(provider, null, e.code ?? null, `${provider} could not be reached${reached ? ' (no answer arrived)' : ''}: ${e.message}`, reached && e.code !== 'EOUTBOUNDREFUSED'));
    });
    r.end(req.body);
  });
}

/** The answer's body as JSON, or null when it is not JSON. */
export function jsonOf(answer: ProviderAnswer): unknown {
  try {
    return answer.text ? JSON.parse(answer.text) : null;
  } catch {
    return null;
  }
}
