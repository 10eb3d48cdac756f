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

function hasHeader(headers: Record<string, string>, lower: string) {
  for (const k in headers) if (k.toLowerCase() === lower) return true;
  return false;
}
