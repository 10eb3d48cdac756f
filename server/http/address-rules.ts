import { BlockList, isIP } from 'node:net';

/*
 * Which network addresses Steward may connect to when a customer or a web page names the
 * destination (webhook endpoints, MCP servers, the workspace browser): never the cloud metadata
 * endpoints (not even inside a range an operator allowed), and no loopback, private, link-local
 * or reserved address unless the operator allows its range by CIDR in the variable the caller
 * names. One rule, so the three callers cannot drift apart.
 */

/** Host names that answer with instance credentials on the big clouds. */
export const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.internal']);

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
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  nonPublic.addSubnet(net, bits, 'ipv6');

const cache = new Map<string, { source: string; list: BlockList }>();

/** The operator's allowance in `variable` (comma-separated CIDRs), re-read when the variable changes. */
export function allowedRanges(variable: string): BlockList {
  const source = process.env[variable] ?? '';
  const cached = cache.get(variable);
  if (cached?.source === source) return cached.list;
  const list = new BlockList();
  for (const entry of source.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [addr, bitsText] = entry.split('/');
    const family = isIP(addr ?? '');
    if (!family) continue;
    const bits = bitsText === undefined ? (family === 4 ? 32 : 128) : Number(bitsText);
    if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) continue;
    list.addSubnet(addr!, bits, family === 4 ? 'ipv4' : 'ipv6');
  }
  cache.set(variable, { source, list });
  return list;
}

/** The eight 16-bit groups of an IPv6 address that isIP accepted (`::` expanded, a dotted tail as two groups). */
function groups(v6: string): number[] {
  let text = v6;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const ipv4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * IPv6 forms that carry an IPv4 address are judged as that IPv4 address, so a private or
 * metadata address cannot be reached by spelling it in IPv6:
 * - IPv4-mapped `::ffff:a.b.c.d` (::ffff:0:0/96) and IPv4-translated `::ffff:0:a.b.c.d` (::ffff:0:0:0/96);
 * - IPv4-compatible `::a.b.c.d` (::/96, deprecated; `::` and `::1` stay the IPv6 unspecified and loopback addresses);
 * - 6to4 `2002:AABB:CCDD::/48` (2002::/16), whose relay reaches the IPv4 address AA.BB.CC.DD.
 * Decoding, rather than refusing the ranges outright, keeps a 6to4 address of a public IPv4 host
 * reachable, and lets an operator's IPv4 allowance cover the same host in either spelling.
 */
function normalize(address: string): { address: string; type: 'ipv4' | 'ipv6' } | null {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(bare);
  if (family === 4) return { address: bare, type: 'ipv4' };
  if (family !== 6) return null;
  const lower = bare.toLowerCase();
  const g = groups(lower);
  if (g.length !== 8 || g.some((x) => !Number.isInteger(x) || x < 0 || x > 0xffff)) return { address: lower, type: 'ipv6' };
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const mapped = zeros(0, 5) && g[5] === 0xffff;
  const translated = zeros(0, 4) && g[4] === 0xffff && g[5] === 0;
  const compatible = zeros(0, 6) && !(g[6] === 0 && (g[7] === 0 || g[7] === 1));
  if (mapped || translated || compatible) return { address: ipv4Of(g[6]!, g[7]!), type: 'ipv4' };
  if (g[0] === 0x2002) return { address: ipv4Of(g[1]!, g[2]!), type: 'ipv4' };
  return { address: lower, type: 'ipv6' };
}

export type AddressProblem = { code: 'metadata' | 'private' | 'invalid'; reason: string };

/** Why Steward may not connect to this address, or null when it may. */
export function addressProblem(address: string, allowVariable: string): AddressProblem | null {
  const n = normalize(address);
  if (!n) return { code: 'invalid', reason: `${address} is not an IP address` };
  if (metadata.check(n.address, n.type)) return { code: 'metadata', reason: `${address} is a cloud metadata address` };
  if (nonPublic.check(n.address, n.type) && !allowedRanges(allowVariable).check(n.address, n.type)) {
    return { code: 'private', reason: `${address} is a loopback, private or reserved address (an operator may allow a range with ${allowVariable})` };
  }
  return null;
}
