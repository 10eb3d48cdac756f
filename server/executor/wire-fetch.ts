import http from 'node:http';
import https from 'node:https';

/**
 * `fetch` for the durable engine's own HTTP calls that leave the process: the Inngest SDK's
 * checkpoints, events and registration to an executor or Inngest server elsewhere, and the
 * executor's calls of a serve endpoint in another process. Each checkpoint is one request, so a
 * step served over HTTP pays for one; through Node's `fetch` (undici's WHATWG machinery: a Web
 * Request, its headers, an AbortSignal, body streams on both sides) that was about three times
 * the CPU of the same request made with `node:http` on a kept-alive socket (issue 47, measured in
 * the executor bench's app process).
 *
 * Only what the engine sends takes the short way: http(s) URLs given as a string or URL, a body
 * that is absent, a string or bytes, and no redirect in the answer. Anything else (a `Request`, a
 * stream or form body, another scheme) goes to `fetch`, as does a 3xx answer (asked again there,
 * so redirects are followed as `fetch` follows them). The answer is a real `Response`, its body
 * read in full first: the engine's answers are small JSON.
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/** A status `new Response` accepts with a body, and one it needs without. */
const NULL_BODY = new Set([204, 205, 304]);

type Body = string | Uint8Array | undefined;

function simpleBody(body: RequestInit['body']): Body | null {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  return null;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries = headers instanceof Headers ? headers.entries() : Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [k, v] of entries) {
    const key = k.toLowerCase();
    // Repeated names combine as Headers would combine them.
    out[key] = key in out ? `${out[key]}, ${v}` : v;
  }
  return out;
}

class Redirected extends Error {}

function send(url: URL, init: RequestInit | undefined, body: Body, retried: boolean): Promise<Response> {
  const agent = agents[url.protocol as keyof typeof agents];
  const headers = headerRecord(init?.headers);
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise<Response>((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: init?.method ?? 'GET', headers, agent, signal: init?.signal ?? undefined }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        reject(new Redirected());
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const h = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        try {
          resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: h }));
        } catch (e) {
          reject(e);
        }
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed as the request went out: the server read none of
      // it, so it is sent once more on a new socket (what Node's documentation advises).
      if (!retried && req.reusedSocket && err.code === 'ECONNRESET') send(url, init, body, true).then(resolve, reject);
      else reject(err);
    });
    req.end(body);
  });
}

/** `fetch` for the engine's calls (see above). */
export const wireFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  if (input instanceof Request) return fetch(input, init);
  const body = simpleBody(init?.body);
  const url = typeof input === 'string' ? new URL(input) : input;
  if (body === null || !(url.protocol in agents) || init?.redirect === 'manual' || init?.redirect === 'error') return fetch(input, init);
  try {
    return await send(url, init, body, false);
  } catch (e) {
    if (e instanceof Redirected) return fetch(input, init);
    // As fetch rejects: a TypeError naming the cause (an aborted call keeps its AbortError).
    if (e instanceof Error && e.name === 'AbortError') throw e;
    throw new TypeError('fetch failed', { cause: e });
  }
}) as typeof fetch;
