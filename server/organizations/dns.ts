import { Resolver } from 'node:dns/promises';

/**
 * TXT lookups with node:dns. DNS_SERVERS (comma-separated host:port) overrides the
 * system's resolvers, which is also how tests point at a loopback DNS server.
 */
export async function lookupTxt(name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  const servers = process.env.DNS_SERVERS?.split(',').map((s) => s.trim()).filter(Boolean);
  if (servers?.length) resolver.setServers(servers);
  try {
    const records = await resolver.resolveTxt(name);
    return records.map((chunks) => chunks.join(''));
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
    throw e;
  }
}
