import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import { answerWithin, TOTAL_MS } from '@/server/http/outbound-timeouts';
import { addressAllowed, guardedLookup } from '@/server/http/outbound-url';

/**
 * The operator's allowed ranges for MCP servers (comma-separated CIDRs): by default an MCP server
 * inside the deployment's network (loopback, private, metadata) is refused, like every URL
 * Steward calls on a customer's say-so.
 */
export const MCP_ALLOW_VARIABLE = 'STEWARD_MCP_ALLOWED_RANGES';

/**
 * A fetch for the MCP SDK's transports that connects only where the outbound rule allows, judged
 * at connection time (a name re-resolving to an inner address is refused when used). Built on
 * node:http so the lookup can be guarded; the body streams, as SSE needs.
 */
export async function guardedFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`${target.protocol} URLs are not allowed`);
  if (net.isIP(host) && !addressAllowed(host, MCP_ALLOW_VARIABLE)) {
    throw new TypeError(`refused: ${host} is inside the deployment's network (allow it with ${MCP_ALLOW_VARIABLE})`);
  }
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((v, k) => (headers[k] = v));
  let body: Buffer | undefined;
  if (init.body != null) {
    // Any BodyInit (a string, form parameters for the OAuth token endpoint, bytes) as fetch would encode it, with its default content type.
    const encoded = new Request(target, { method: 'POST', body: init.body });
    body = Buffer.from(await encoded.arrayBuffer());
    const type = encoded.headers.get('content-type');
    if (type && !headers['content-type']) headers['content-type'] = type;
    headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const send = target.protocol === 'https:' ? https.request : http.request;
    const req = send(target, { method: init.method ?? 'GET', headers, lookup: guardedLookup(MCP_ALLOW_VARIABLE) }, (res) => {
      const resHeaders = new Headers();
      for (const [k, v] of Object.entries(res.headers)) {
        if (Array.isArray(v)) v.forEach((x) => resHeaders.append(k, x));
        else if (v !== undefined) resHeaders.set(k, v);
      }
      const status = res.statusCode ?? 502;
      const noBody = status === 204 || status === 304 || init.method === 'HEAD';
      if (noBody) res.resume();
      resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream), { status, statusText: res.statusMessage, headers: resHeaders }));
    });
    // Connecting, and the answer's head, within their timeouts (server/http/outbound-timeouts.ts); the body may stream for long.
    answerWithin(req, TOTAL_MS.mcpAnswer);
    const signal = init.signal;
    const abort = () => req.destroy(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    req.on('error', (e) => reject(e));
    req.on('close', () => signal?.removeEventListener('abort', abort));
    req.end(body);
  });
}
