import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * X-Twilio-Signature (Twilio's "Secure webhooks"): HMAC-SHA1, keyed by the Auth Token, of the full
 * URL Twilio requested (scheme, host, port, path and query) followed by every POST parameter,
 * sorted by name, each as name then value with no separator; base64. The URL is Steward's public
 * one (STEWARD_PUBLIC_URL + path), never built from the Host header. Twilio's own helpers also
 * accept the URL with the scheme's default port written out or left off, as proxies differ.
 */

/** The parameters as Twilio signs them: names sorted, a repeated name's values sorted too. */
export function signedPayload(url: string, params: Iterable<[string, string]>): string {
  const byName = new Map<string, string[]>();
  for (const [k, v] of params) byName.set(k, [...(byName.get(k) ?? []), v]);
  let out = url;
  for (const name of [...byName.keys()].sort()) for (const value of byName.get(name)!.sort()) out += name + value;
  return out;
}

export const twilioSignature = (authToken: string, url: string, params: Iterable<[string, string]>) =>
  createHmac('sha1', authToken).update(signedPayload(url, params), 'utf8').digest('base64');

/** The URL with its scheme's default port written out, and without it. */
function portVariants(url: string): string[] {
  try {
    const u = new URL(url);
    const port = u.protocol === 'https:' ? '443' : '80';
    if (u.port) return [url];
    const withPort = `${u.protocol}//${u.username ? `${u.username}:${u.password}@` : ''}${u.hostname}:${port}${u.pathname}${u.search}`;
    return [url, withPort];
  } catch {
    return [url];
  }
}

export function validTwilioSignature(authToken: string, url: string, params: Array<[string, string]>, signature: string | null): boolean {
  if (!signature) return false;
  const given = Buffer.from(signature, 'utf8');
  return portVariants(url).some((u) => {
    const expected = Buffer.from(twilioSignature(authToken, u, params), 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}
