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

/** IPv4-mapped IPv6 (::ffff:a.b.c.d, ::ffff:7f00:1) is judged as the IPv4 address it is. */
function normalize(address: string): { address: string; type: 'ipv4' | 'ipv6' } | null {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(bare);
  if (family === 4) return { address: bare, type: 'ipv4' };
  if (family !== 6) return null;
  const lower = bare.toLowerCase();
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
