/** One year; not includeSubDomains: a hosted domain's siblings belong to the customer, not to Steward. */
export const HSTS = 'max-age=31536000';

/**
 * Headers every API answer carries. nosniff: a JSON body is never rendered as something else.
 * no-store: answers are per credential and some carry secrets (a new API key, a SCIM token), so
 * no cache keeps any of them; a handler that sets its own Cache-Control keeps it. HSTS whenever
 * the request's host is served on https (browsers ignore it over http anyway).
 */
export function addApiHeaders(headers: Record<string, string>, secure: boolean): void {
  headers['X-Content-Type-Options'] = 'nosniff';
  if (!hasHeader(headers, 'cache-control')) headers['Cache-Control'] = 'no-store';
  if (secure) headers['Strict-Transport-Security'] = HSTS;
}

/** The same for a Response a handler built; one with immutable headers is copied first. */
export function withApiHeaders(res: Response, secure: boolean): Response {
  let out = res;
  try {
    out.headers.set('X-Content-Type-Options', 'nosniff');
  } catch {
    out = new Response(res.body, { status: res.status, statusText: res.statusText, headers: new Headers(res.headers) });
    out.headers.set('X-Content-Type-Options', 'nosniff');
  }
  if (!out.headers.has('cache-control')) out.headers.set('Cache-Control', 'no-store');
  if (secure) out.headers.set('Strict-Transport-Security', HSTS);
  return out;
}

/**
 * The whole header set of a JSON answer without headers of its own (most answers): one object
 * literal of a fixed shape, what addApiHeaders and the request id would have made of json()'s.
 */
export function plainJsonHeaders(secure: boolean, requestId: string): Record<string, string> {
  return secure
    ? { 'Content-Type': 'application/json; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store', 'Strict-Transport-Security': HSTS, 'X-Request-Id': requestId }
    : { 'Content-Type': 'application/json; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store', 'X-Request-Id': requestId };
}

function hasHeader(headers: Record<string, string>, lower: string) {
  for (const k in headers) if (k.toLowerCase() === lower) return true;
  return false;
}
