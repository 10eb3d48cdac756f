import type { TextReply } from './reply';

/**
 * Some protocols served under /api answer errors in their own shape (SCIM's
 * `urn:ietf:params:scim:api:messages:2.0:Error`): a client of that protocol reads only that. An
 * area's endpoints carry their dialect (`errorDialect`, with the path prefix it covers); the
 * kernel then turns every error it answers under that prefix (unknown path, wrong method,
 * malformed JSON, refused credential, rate limit) from Steward's shape into the dialect's. The
 * standard reply is the input, so status, message and headers (Retry-After, Allow,
 * WWW-Authenticate) are decided once, in the kernel. The registry is the one source: nothing is
 * registered when a module loads.
 */
export type ErrorDialect = (standard: { status: number; message: string; code: string | null; headers: Record<string, string> }) => TextReply;

/** `prefix` is a path under /api without it, e.g. '/scim/v2/'. */
export type PathDialect = { prefix: string; format: ErrorDialect };

/** The distinct dialects an endpoint list carries. */
export function dialectsOf(endpoints: readonly { errorDialect?: PathDialect }[]): PathDialect[] {
  const found: PathDialect[] = [];
  for (const ep of endpoints) if (ep.errorDialect && !found.some((d) => d.prefix === ep.errorDialect!.prefix)) found.push(ep.errorDialect);
  return found;
}

export function errorDialectFor(dialects: readonly PathDialect[], pathname: string): ErrorDialect | null {
  for (const d of dialects) if (pathname.startsWith(d.prefix) || pathname === d.prefix.replace(/\/$/, '')) return d.format;
  return null;
}
