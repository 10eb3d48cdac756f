import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { applyTimeouts, TOTAL_MS } from '@/server/http/outbound-timeouts';
import { addressAllowed, guardedLookup } from '@/server/http/outbound-url';

/*
 * The fetch every CalDAV request goes through (tsdav takes it as its `fetch`): a CalDAV server is
 * a URL a user gave, so it is called under the rule for such URLs (server/http/outbound-url.ts):
 * never an address inside the deployment's network unless STEWARD_PROVIDER_ALLOWED_RANGES allows
 * it, judged at connection time (a name re-resolving inward is refused when used) and again on
 * every redirect. Each request is bounded by the calendar APIs' timeouts
 * (server/http/outbound-timeouts.ts); the answer is read whole (CalDAV answers are XML or
 * iCalendar, never a stream).
 */

export const CALDAV_ALLOW = 'STEWARD_PROVIDER_ALLOWED_RANGES';
const MAX_BODY = 64 * 1024 * 1024;
const MAX_REDIRECTS = 5;

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 16 }), https: new https.Agent({ keepAlive: true, maxSockets: 16 }) };

type Answer = { status: number; statusText: string; headers: Headers; body: Buffer };

function once(url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, signal: AbortSignal | null | undefined): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new TypeError(`${url.protocol} URLs are not allowed`));
    // An IP literal is connected to without a lookup: judged here.
    if (net.isIP(host) && !addressAllowed(host, CALDAV_ALLOW)) return reject(new TypeError(`refused: ${host} is inside the deployment's network (allow it with ${CALDAV_ALLOW})`));
    const secure = url.protocol === 'https:';
    const req = (secure ? https : http).request(
      url,
      { method, headers: { 'User-Agent': 'Steward', ...headers }, agent: secure ? agents.https : agents.http, lookup: guardedLookup(CALDAV_ALLOW) },
      (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) return req.destroy(new Error(`the CalDAV server's answer is larger than ${MAX_BODY} bytes`));
          parts.push(c);
        });
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) v.forEach((x) => h.append(k, x));
            else if (v !== undefined) h.set(k, v);
          }
          resolve({ status: res.statusCode ?? 502, statusText: res.statusMessage ?? '', headers: h, body: Buffer.concat(parts) });
        });
        res.on('error', reject);
      },
    );
    applyTimeouts(req, TOTAL_MS.mailbox);
    const abort = () => req.destroy(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', abort));
    req.on('error', reject);
    req.end(body);
  });
}

/** A fetch-compatible call under the outbound rule; redirects are followed (each hop judged again) unless `redirect: 'manual'`. */
export async function caldavFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  let url = new URL(input instanceof Request ? input.url : input);
  let method = (init.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((v, k) => (headers[k] = v));
  let body: Buffer | undefined = init.body == null ? undefined : typeof init.body === 'string' ? Buffer.from(init.body) : Buffer.from(await new Response(init.body).arrayBuffer());
  if (body) headers['content-length'] = String(body.length);
  for (let hop = 0; ; hop++) {
    const answer = await once(url, method, headers, body, init.signal);
    const location = answer.headers.get('location');
    if (init.redirect !== 'manual' && location && [301, 302, 303, 307, 308].includes(answer.status) && hop < MAX_REDIRECTS) {
      const next = new URL(location, url);
      // Credentials go only to the origin they were given for.
      if (next.origin !== url.origin) delete headers.authorization;
      if (answer.status === 303) {
        method = 'GET';
        body = undefined;
        delete headers['content-length'];
      }
      url = next;
      continue;
    }
    const noBody = answer.status === 204 || answer.status === 304 || method === 'HEAD';
    const response = new Response(noBody ? null : new Uint8Array(answer.body), { status: answer.status, statusText: answer.statusText, headers: answer.headers });
    // tsdav names a failed request by its URL.
    Object.defineProperty(response, 'url', { value: url.href });
    return response;
  }
}
