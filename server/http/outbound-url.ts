import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import net from 'node:net';
import { addressProblem, METADATA_HOSTS } from './address-rules';
import { AppError } from './errors';

/*
 * The one rule for URLs Steward itself calls on a customer's say-so (webhook endpoints, MCP
 * servers): http or https only, and never an address inside the deployment's own network —
 * loopback, private (RFC 1918, ULA), link-local (the cloud metadata endpoints live there),
 * carrier-grade NAT, unspecified, multicast — unless the operator allows a range by CIDR in the
 * variable the caller names. The check runs on every address a name resolves to, and again at
 * connection time (guardedLookup), so a name that re-resolves to an inner address (DNS
 * rebinding) is refused when it is used, not only when it was registered.
 */

/** Whether Steward may connect to this address under the operator's allowance in `allowVariable`. */
export function addressAllowed(address: string, allowVariable: string): boolean {
  return addressProblem(address, allowVariable) === null;
}

const refusal = (field: string, message: string) => new AppError(400, 'outbound_url_refused', message, { field });

/** Checks a URL before it is stored: scheme, and every address its host resolves to now. */
export async function checkOutboundUrl(raw: string, opts: { field: string; allowVariable: string }): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refusal(opts.field, `${opts.field} is not a valid URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refusal(opts.field, `${opts.field} must be an http or https URL`);
  if (url.username || url.password) throw refusal(opts.field, `${opts.field} must not carry credentials`);
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (METADATA_HOSTS.has(host)) throw refusal(opts.field, `${opts.field} names a cloud metadata host`);
  const addresses = net.isIP(host) ? [host] : await resolveAll(host).catch(() => [] as string[]);
  if (!addresses.length) throw refusal(opts.field, `${opts.field}: ${host} does not resolve`);
  const inner = addresses.find((a) => !addressAllowed(a, opts.allowVariable));
  if (inner) throw refusal(opts.field, `${opts.field} points inside the deployment's network (${inner}); an operator can allow a range with ${opts.allowVariable}`);
  return url;
}

const resolveAll = (host: string) =>
  new Promise<string[]>((resolve, reject) => dnsLookup(host, { all: true }, (err, list: LookupAddress[]) => (err ? reject(err) : resolve(list.map((l) => l.address)))));

/**
 * A `lookup` for http.request/https.request that refuses inner addresses at connection time
 * (the socket never opens to them).
 */
export function guardedLookup(allowVariable: string): net.LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, list) => {
      if (err) return (callback as (e: Error | null, a: LookupAddress[]) => void)(err, []);
      const addresses = list as unknown as LookupAddress[];
      const bad = addresses.find((a) => !addressAllowed(a.address, allowVariable));
      if (bad) {
        const e = Object.assign(new Error(`refused: ${hostname} resolves to ${bad.address}, inside the deployment's network`), { code: 'EOUTBOUNDREFUSED' });
        return (callback as (e: Error | null, a: LookupAddress[]) => void)(e, []);
      }
      if ((options as { all?: boolean }).all) return (callback as (e: Error | null, a: LookupAddress[]) => void)(null, addresses);
      (callback as (e: Error | null, a: string, f: number) => void)(null, addresses[0].address, addresses[0].family);
    });
  };
}
