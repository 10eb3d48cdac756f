/** Host names served over plain http: loopback only (local development and tests). */
const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

/**
 * The hosted app's origin for a request: the proxy's X-Forwarded-Proto when present, plain http
 * on loopback, https everywhere else (the SP values registered in an IdP are https).
 */
export function hostedOrigin(headers: Pick<Headers, 'get'>, hostOverride?: string | null) {
  const host = (hostOverride ?? headers.get('x-forwarded-host') ?? headers.get('host') ?? 'localhost').split(',')[0].trim().toLowerCase();
  const forwarded = headers.get('x-forwarded-proto')?.split(',')[0].trim().toLowerCase();
  const proto = forwarded === 'http' || forwarded === 'https' ? forwarded : LOOPBACK.test(host) ? 'http' : 'https';
  return { host, origin: `${proto}://${host}`, secure: proto === 'https' };
}
