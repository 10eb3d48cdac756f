import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/*
 * Where the workspace browser may go (spec document 2, workspace security): only http, https
 * and data URLs; never local files, never cloud metadata endpoints, and no loopback, private
 * or link-local address unless an operator allows that range (STEWARD_WORKSPACE_ALLOW_PRIVATE,
 * a comma-separated CIDR list). Names are checked after DNS resolution, and the egress proxy
 * (browser/egress-proxy.ts) connects only to an address this module accepted, so a redirect,
 * a subresource or a name that re-resolves elsewhere cannot reach what a URL check refused.
 * Nothing else in server/ guarded outbound addresses, so this is the one place.
 */

export type UrlVerdict =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; code: 'invalid' | 'scheme' | 'metadata' | 'private' | 'unresolvable'; reason: string };

const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'data:']);

/** Host names that answer with instance credentials on the big clouds. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.internal']);

/** Metadata addresses are refused even inside a range an operator allowed. */
const metadata = new BlockList();
for (const a of ['169.254.169.254', '169.254.169.253', '169.254.170.2', '100.100.100.200', '168.63.129.16']) metadata.addAddress(a, 'ipv4');
metadata.addAddress('fd00:ec2::254', 'ipv6');

const nonPublic = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  nonPublic.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  nonPublic.addSubnet(net, bits, 'ipv6');

let allowedCache: { source: string; list: BlockList } | undefined;

/** The operator's allowance, re-read when the variable changes (tests set it per file). */
function allowedRanges(): BlockList {
  const source = process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE ?? '';
  if (allowedCache?.source === source) return allowedCache.list;
  const list = new BlockList();
  for (const entry of source.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [addr, bitsText] = entry.split('/');
    const family = isIP(addr ?? '');
    if (!family) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const bits = bitsText === undefined ? (family === 4 ? 32 : 128) : Number(bitsText);
    if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) continue;
    list.addSubnet(addr!, bits, type);
  }
  allowedCache = { source, list };
  return list;
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d, ::ffff:7f00:1) is checked as the IPv4 address it is. */
function normalize(address: string): { address: string; type: 'ipv4' | 'ipv6' } | null {
  const family = isIP(address);
  if (family === 4) return { address, type: 'ipv4' };
  if (family !== 6) return null;
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return { address: dotted[1]!, type: 'ipv4' };
  const hex = /^(?:0{0,4}:){0,4}:?(?:0{0,4}:)?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, type: 'ipv4' };
  }
  return { address: lower, type: 'ipv6' };
}

/** Why the browser may not connect to this address, or null when it may. */
export function addressProblem(address: string): { code: 'metadata' | 'private' | 'invalid'; reason: string } | null {
  const n = normalize(address);
  if (!n) return { code: 'invalid', reason: `${address} is not an IP address` };
  if (metadata.check(n.address, n.type)) return { code: 'metadata', reason: `${address} is a cloud metadata address` };
  if (nonPublic.check(n.address, n.type) && !allowedRanges().check(n.address, n.type)) {
    return { code: 'private', reason: `${address} is a loopback, private or reserved address (an operator may allow a range with STEWARD_WORKSPACE_ALLOW_PRIVATE)` };
  }
  return null;
}

/** The addresses a host name may be reached at: every resolved address the rules accept. */
export async function resolveAllowed(hostname: string): Promise<{ ok: true; addresses: string[] } | Extract<UrlVerdict, { ok: false }>> {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (!host) return { ok: false, code: 'invalid', reason: 'the URL names no host' };
  if (METADATA_HOSTS.has(host)) return { ok: false, code: 'metadata', reason: `${host} is a cloud metadata host` };
  let candidates: string[];
  if (isIP(host)) candidates = [host];
  else {
    try {
      candidates = (await lookup(host, { all: true, verbatim: true })).map((r) => r.address);
    } catch {
      return { ok: false, code: 'unresolvable', reason: `${host} does not resolve` };
    }
  }
  const problems = candidates.map((a) => ({ a, p: addressProblem(a) }));
  const metadataHit = problems.find((x) => x.p?.code === 'metadata');
  if (metadataHit) return { ok: false, code: 'metadata', reason: `${host} resolves to ${metadataHit.p!.reason}` };
  const addresses = problems.filter((x) => !x.p).map((x) => x.a);
  if (!addresses.length) {
    const first = problems[0]?.p;
    return { ok: false, code: first?.code === 'invalid' ? 'unresolvable' : 'private', reason: first ? (isIP(host) ? first.reason : `${host} resolves to ${first.reason}`) : `${host} does not resolve` };
  }
  return { ok: true, addresses };
}

/**
 * Whether the workspace browser may open `raw`: the scheme, then (for http and https) the
 * host after DNS resolution. Used before every agent navigation, and by the egress proxy for
 * everything the browser fetches.
 */
export async function checkWorkspaceUrl(raw: string): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, code: 'invalid', reason: 'not an absolute URL' };
  }
  if (!ALLOWED_SCHEMES.has(url.protocol)) {
    return { ok: false, code: 'scheme', reason: `${url.protocol.replace(/:$/, '')} URLs are not allowed: only http, https and data` };
  }
  if (url.protocol === 'data:') return { ok: true, url, addresses: [] };
  if (url.username || url.password) return { ok: false, code: 'invalid', reason: 'URLs with credentials are not allowed' };
  const resolved = await resolveAllowed(url.hostname);
  if (!resolved.ok) return resolved;
  return { ok: true, url, addresses: resolved.addresses };
}
