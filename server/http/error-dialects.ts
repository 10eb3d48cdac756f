import type { TextReply } from './reply';

/**
 * Some protocols served under /api answer errors in their own shape (SCIM's
 * `urn:ietf:params:scim:api:messages:2.0:Error`): a client of that protocol reads only that. An
 * area registers a dialect for its path prefix; the kernel then turns every error it answers under
 * that prefix (unknown path, wrong method, malformed JSON, refused credential, rate limit) from
 * Steward's shape into the dialect's. The standard reply is the input, so status, message and
 * headers (Retry-After, Allow, WWW-Authenticate) are decided once, in the kernel.
 */
export type ErrorDialect = (standard: { status: number; message: string; code: string | null; headers: Record<string, string> }) => TextReply;

const dialects: { prefix: string; format: ErrorDialect }[] = [];

/** `prefix` is a path under /api without it, e.g. '/scim/v2/'. Registered once, at module load. */
export function registerErrorDialect(prefix: string, format: ErrorDialect): void {
  if (!dialects.some((d) => d.prefix === prefix)) dialects.push({ prefix, format });
}

export function errorDialectFor(pathname: string): ErrorDialect | null {
  for (const d of dialects) if (pathname.startsWith(d.prefix) || pathname === d.prefix.replace(/\/$/, '')) return d.format;
  return null;
}
