/*
 * Where a change came from, for its audit event: the client's address, its user agent and the
 * request id. The kernel notes them for the caller object it hands a write's handler (the actor,
 * or a SCIM caller), so a service records them with no parameter threaded through every call: the
 * caller object is the request's own, made fresh for each one.
 */
export type RequestMeta = { ip: string | null; userAgent: string | null; requestId: string | null };

const metas = new WeakMap<object, RequestMeta>();

/** Called by the kernel (and the hosted app's routers) for each caller object of a write. */
export function noteRequest(caller: object, meta: RequestMeta): void {
  metas.set(caller, meta);
}

export function requestOf(caller: object | null | undefined): RequestMeta | null {
  return caller ? (metas.get(caller) ?? null) : null;
}

/** A header value as it may be stored: bounded, single line. */
export const boundedHeader = (v: string | null | undefined, max = 400): string | null => (v ? v.replace(/[\r\n]+/g, ' ').slice(0, max) : null);
