import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import net from 'node:net';
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

type Range = { family: 4 | 6; bits: bigint; prefix: number };

const toBig = (address: string): { family: 4 | 6; value: bigint } | null => {
  if (net.isIPv4(address)) return { family: 4, value: address.split('.').reduce((a, o) => (a << 8n) | BigInt(Number(o)), 0n) };
  if (!net.isIPv6(address)) return null;
  // Expand :: and an embedded IPv4 tail into eight 16-bit groups.
  let a = address.toLowerCase().split('%')[0];
  const v4 = a.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const n = toBig(v4[1])!.value;
    a = a.slice(0, -v4[1].length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined ? (tail ? tail.split(':') : []) : [];
  const groups = tail !== undefined ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return { family: 6, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n) };
};

const range = (cidr: string): Range | null => {
  const [addr, len] = cidr.trim().split('/');
  const ip = toBig(addr);
  if (!ip) return null;
  const width = ip.family === 4 ? 32 : 128;
  const prefix = len === undefined ? width : Number(len);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width) return null;
  return { family: ip.family, bits: ip.value >> BigInt(width - prefix), prefix };
};

const inRange = (ip: { family: 4 | 6; value: bigint }, r: Range) => {
  if (ip.family !== r.family) return false;
  const width = ip.family === 4 ? 32 : 128;
  return ip.value >> BigInt(width - r.prefix) === r.bits;
};

const INNER = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4',
  '::/128', '::1/128', 'fc00::/7', 'fe80::/10', 'ff00::/8', '64:ff9b:1::/48',
].map((c) => range(c)!);

/** The operator's allowed ranges (comma-separated CIDRs) from the named variable. */
export function allowedRanges(variable: string): Range[] {
  return (process.env[variable] ?? '').split(',').filter((s) => s.trim()).map(range).filter((r): r is Range => r !== null);
}

/** Whether Steward may connect to this address: not an inner one, or inside an allowed range. */
export function addressAllowed(address: string, allowed: Range[]): boolean {
  let ip = toBig(address);
  if (!ip) return false;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  if (ip.family === 6 && ip.value >> 32n === 0xffffn) ip = { family: 4, value: ip.value & 0xffffffffn };
  if (allowed.some((r) => inRange(ip, r))) return true;
  return !INNER.some((r) => inRange(ip, r));
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
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = net.isIP(host) ? [host] : await resolveAll(host).catch(() => [] as string[]);
  if (!addresses.length) throw refusal(opts.field, `${opts.field}: ${host} does not resolve`);
  const allowed = allowedRanges(opts.allowVariable);
  const inner = addresses.find((a) => !addressAllowed(a, allowed));
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
      const allowed = allowedRanges(allowVariable);
      const bad = addresses.find((a) => !addressAllowed(a.address, allowed));
      if (bad) {
        const e = Object.assign(new Error(`refused: ${hostname} resolves to ${bad.address}, inside the deployment's network`), { code: 'EOUTBOUNDREFUSED' });
        return (callback as (e: Error | null, a: LookupAddress[]) => void)(e, []);
      }
      if ((options as { all?: boolean }).all) return (callback as (e: Error | null, a: LookupAddress[]) => void)(null, addresses);
      (callback as (e: Error | null, a: string, f: number) => void)(null, addresses[0].address, addresses[0].family);
    });
  };
}
