/**
 * The one place that decides where Steward is reached: the public origin (STEWARD_PUBLIC_URL),
 * which host a request names, which scheme that host is served on, and which address the client
 * has. Request headers pick among configured answers; they never supply an origin themselves.
 * Both processes (the kernel's and the Next.js child's) decide through these functions, so the
 * links, SAML values and cookie names of one request agree wherever they are computed.
 */

export type Origin = {
  /** scheme://host[:port], no trailing slash */
  origin: string;
  /** host[:port] as it appears in a Host header */
  host: string;
  /** served over https: Secure cookies, HSTS */
  secure: boolean;
};

/** Host names served over plain http: loopback only (local development and tests). */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(:\d{1,5})?$/i;

/** A Host header value: a DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/;

/** An address as a proxy writes it into X-Forwarded-For (IPv4, IPv6). */
const ADDRESS = /^[0-9a-f:.]{2,45}$/i;

export const isLoopbackHost = (host: string) => LOOPBACK.test(host);

/** Forwarded headers count only when a proxy Steward trusts stands in front of it. */
export const trustProxy = () => process.env.TRUST_PROXY === '1';

/** The value the nearest proxy added: the right-most entry of a comma-separated forwarded header. */
function rightMost(value: string | null | undefined): string | null {
  if (!value) return null;
  const parts = value.split(',');
  const last = parts[parts.length - 1].trim();
  return last || null;
}

/** A host name as Steward compares them (lower case), or null when it is not one. */
export function normalizeHost(value: string | null | undefined): string | null {
  if (!value) return null;
  const host = value.trim().toLowerCase();
  return host.length <= 260 && HOST.test(host) ? host : null;
}

let cache: { raw: string | undefined; port: string | undefined; value: Origin } | undefined;

/**
 * STEWARD_PUBLIC_URL's origin, or http://localhost:PORT for local use. Links, SAML values and
 * upload URLs of the API and of an account without a hosted domain use it.
 * A value that is not an http(s) origin throws (npm start checks it before serving).
 */
export function publicOrigin(): Origin {
  const raw = process.env.STEWARD_PUBLIC_URL;
  const port = process.env.PORT;
  if (cache && cache.raw === raw && cache.port === port) return cache.value;
  const value = raw ? parsePublicUrl(raw) : parsePublicUrl(`http://localhost:${validPort(port) ?? 3000}`);
  cache = { raw, port, value };
  return value;
}

const validPort = (p: string | undefined) => {
  const n = Number(p);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
};

function parsePublicUrl(raw: string): Origin {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`STEWARD_PUBLIC_URL: "${raw}" is not a URL; expected an origin such as https://steward.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('STEWARD_PUBLIC_URL: must start with http:// or https://');
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new Error('STEWARD_PUBLIC_URL: must be an origin only (scheme, host and port), without a path, query or credentials');
  }
  return { origin: url.origin, host: url.host, secure: url.protocol === 'https:' };
}

/**
 * The origin a host is served on: the public origin for its own host; plain http for loopback
 * hosts; https for any other (a hosted domain: the SP values registered in an IdP are https).
 * Never what X-Forwarded-Proto says: the scheme follows from the host alone, so the kernel and
 * the Next.js pages cannot disagree about it.
 */
export function originForHost(host: string): Origin {
  const pub = publicOrigin();
  if (host === pub.host) return pub;
  const secure = !isLoopbackHost(host);
  return { origin: `${secure ? 'https' : 'http'}://${host}`, host, secure };
}

/**
 * The host a request names, used only to choose among configured hosts (which account's hosted
 * app): the Host header, or behind a trusted proxy the X-Forwarded-Host that proxy added.
 * Null when absent or not a host name.
 */
export function requestHost(headers: Pick<Headers, 'get'>): string | null {
  const forwarded = trustProxy() ? normalizeHost(rightMost(headers.get('x-forwarded-host'))) : null;
  return forwarded ?? normalizeHost(headers.get('host'));
}

/**
 * The client's address, for per-IP limits. `socketAddress` is the connection's peer; without it
 * the request came through Steward's own front (server/http/forwarded.ts), which put its decision
 * in X-Forwarded-For. Behind a trusted proxy (TRUST_PROXY=1), the right-most X-Forwarded-For
 * entry: the address that proxy saw; entries further left are whatever the client claimed.
 */
export function clientAddress(headers: Pick<Headers, 'get'>, socketAddress?: string): string {
  const forwarded = rightMost(headers.get('x-forwarded-for'));
  const valid = forwarded && ADDRESS.test(forwarded) ? forwarded : null;
  if (socketAddress === undefined) return valid ?? 'unknown';
  // The environment is read only when there is a forwarded address to trust or not.
  return valid !== null && trustProxy() ? valid : socketAddress;
}
