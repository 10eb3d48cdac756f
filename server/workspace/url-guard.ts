import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressProblem as kernelAddressProblem, METADATA_HOSTS, type AddressProblem } from '@/server/http/address-rules';

/*
 * Where the workspace browser may go (spec document 2, workspace security): only http, https
 * and data URLs; never local files, never cloud metadata endpoints, and no loopback, private
 * or link-local address unless an operator allows that range (STEWARD_WORKSPACE_ALLOW_PRIVATE,
 * a comma-separated CIDR list). Names are checked after DNS resolution, and the egress proxy
 * (browser/egress-proxy.ts) connects only to an address this module accepted, so a redirect,
 * a subresource or a name that re-resolves elsewhere cannot reach what a URL check refused.
 * Which addresses are refused is the kernel's rule (server/http/address-rules.ts), shared with
 * webhooks and MCP servers.
 */

export type UrlVerdict =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; code: 'invalid' | 'scheme' | 'metadata' | 'private' | 'unresolvable'; reason: string };

const ALLOWED_SCHEMES = new Set(['http:', 'https:', 'data:']);

const ALLOW_VARIABLE = 'STEWARD_WORKSPACE_ALLOW_PRIVATE';

/** Why the browser may not connect to this address, or null when it may (the kernel's one rule). */
export function addressProblem(address: string): AddressProblem | null {
  return kernelAddressProblem(address, ALLOW_VARIABLE);
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
