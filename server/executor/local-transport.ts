/**
 * In-process delivery of the HTTP calls one Steward process makes to itself: the Inngest SDK to
 * the built-in executor's ingress (events, checkpoints, registration) and the executor to
 * /api/inngest. The requests and responses are the same Web objects, signed and checked as over
 * the wire; only the loopback socket, its syscalls and the HTTP parsing on both sides are gone
 * (they were most of a short run's CPU). A URL nobody registered goes to the network as before.
 */
export type LocalHandler = (req: Request) => Promise<Response>;

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

/** `fetch`, with registered URLs answered in-process. */
export const localFetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const handler = routes.size ? handlerFor(url) : null;
  if (!handler) return fetch(input, init);
  const req = new Request(input, init);
  // What the socket would have carried: handlers build their URL from the Host header.
  if (!req.headers.has('host')) req.headers.set('host', new URL(url).host);
  return handler(req);
}) as typeof fetch;
