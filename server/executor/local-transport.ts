/**
 * In-process delivery of the HTTP calls one Steward process makes to itself: the Inngest SDK to
 * the built-in executor's ingress (events, checkpoints, registration) and the executor to
 * /api/inngest. The requests carry the same signatures and bodies and are checked as over the
 * wire; only the loopback socket, its syscalls and the HTTP parsing on both sides are gone (they
 * were most of a short run's CPU). A URL nobody registered goes to the network (wire-fetch.ts).
 */
import { wireFetch } from './wire-fetch';

/**
 * A request as `fetch` was given it. Handlers that read only the method, URL, a header or two and
 * a text body (the ingress, once per checkpointed step) never pay for a Web `Request` and its body
 * stream; `request()` builds one for those that need it (the SDK's serve handler).
 */
export class LocalRequest {
  readonly url: string;
  readonly method: string;
  #request: Request | null = null;

  constructor(
    url: string,
    private readonly input: string | URL | Request,
    private readonly init: RequestInit | undefined,
  ) {
    this.url = url;
    this.method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  }

  /** The Web request, built on first use. */
  request(): Request {
    if (!this.#request) {
      this.#request = new Request(this.input, this.init);
      // What the socket would have carried: handlers build their URL from the Host header.
      if (!this.#request.headers.has('host')) this.#request.headers.set('host', new URL(this.url).host);
    }
    return this.#request;
  }

  header(name: string): string | null {
    if (this.#request || this.input instanceof Request) return this.request().headers.get(name);
    const headers = this.init?.headers;
    if (!headers) return null;
    if (headers instanceof Headers) return headers.get(name);
    const wanted = name.toLowerCase();
    const entries = Array.isArray(headers) ? headers : Object.entries(headers);
    // Repeated names combine as Headers would combine them.
    const values = entries.filter(([k]) => k.toLowerCase() === wanted).map(([, v]) => v);
    return values.length ? values.join(', ') : null;
  }

  text(): Promise<string> {
    const body = this.init?.body;
    if (!(this.input instanceof Request)) {
      if (body === undefined || body === null) return Promise.resolve('');
      if (typeof body === 'string') return Promise.resolve(body);
    }
    return this.request().text();
  }
}

export type LocalHandler = (req: LocalRequest) => Promise<Response>;

const routes = new Map<string, LocalHandler>();

const normalized = (base: string) => base.replace(/\/+$/, '');

/** Serves `base` (an origin, or an origin and path) in-process; returns the undo. */
export function registerLocal(base: string, handler: LocalHandler): () => void {
  const key = normalized(base);
  routes.set(key, handler);
  return () => {
    if (routes.get(key) === handler) routes.delete(key);
  };
}

function handlerFor(url: string): LocalHandler | null {
  for (const [base, handler] of routes) {
    if (url.startsWith(base) && (url.length === base.length || '/?'.includes(url[base.length]!))) return handler;
  }
  return null;
}

/** True when `url` is answered in-process (a call there cannot be aborted: it runs on in this process). */
export function handledLocally(url: string): boolean {
  return routes.size > 0 && handlerFor(url) !== null;
}

/** `fetch`, with registered URLs answered in-process, and the rest sent by wire-fetch.ts. */
export const localFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const handler = routes.size ? handlerFor(url) : null;
  if (!handler) return wireFetch(input, init);
  return handler(new LocalRequest(url, input, init));
}) as typeof fetch;
