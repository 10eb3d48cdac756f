import { dmarc, type DNSResolver } from 'mailauth';
import type { HeaderLines } from 'mailparser';
import type { MailAuthResult, MailboxProvider } from '@/db/schema';

/*
 * Whether a message fetched from a mailbox proves its From address, by the rule Steward applies
 * to mail it receives itself (server/mail/checks/authentication.ts): DMARC pass, or SPF or DKIM
 * passing for a domain aligned with the From domain (relaxed alignment, mailauth's organizational
 * domains), never against a DMARC fail. Steward did not receive the message, so it reads the
 * verdict of the provider that did: the topmost Authentication-Results header (RFC 8601), which
 * that provider's own servers added last. A sender could write any header further down, and those
 * are never read; and the topmost one counts only when it is the provider's own (issue 40):
 * - Gmail's names Google's authserv-id, `mx.google.com`;
 * - Exchange Online writes no authserv-id, so its verdict is pinned another way: the message must
 *   carry `X-MS-Exchange-Organization-AuthAs: Anonymous` (Exchange's header firewall removes every
 *   X-MS-Exchange-Organization-* header a sender wrote, so only Exchange can have set it: the mail
 *   came from outside the tenant and Exchange Online Protection judged it), and the topmost
 *   Authentication-Results must be in Exchange's form: no authserv-id, with EOP's own `compauth`
 *   verdict. Mail Exchange did not judge (AuthAs Internal or absent) proves no sender.
 */

export type MailboxSenderProof = { verified: boolean; dmarc: MailAuthResult; unproven: string | null };

type ResInfo = { method: string; result: string; props: Record<string, string> };

const TRUSTED_AUTHSERV: Partial<Record<MailboxProvider, string>> = { gmail: 'mx.google.com' };

/** The header only Exchange can set on a message (its header firewall strips a sender's), and the value for mail EOP judged. */
const EXCHANGE_AUTH_AS = 'x-ms-exchange-organization-authas';

function headerValue(lines: HeaderLines, key: string): string | null {
  const line = lines.find((l) => l.key.toLowerCase() === key)?.line;
  return line === undefined ? null : line.slice(line.indexOf(':') + 1).trim();
}

/** Why the topmost verdict is not the provider's own, or null when it is. */
function notTheProviders(provider: MailboxProvider, lines: HeaderLines, authservId: string | null, results: ResInfo[]): string | null {
  const trusted = TRUSTED_AUTHSERV[provider];
  if (trusted) return authservId === trusted ? null : `its topmost Authentication-Results is not ${trusted}'s`;
  if (provider === 'outlook') {
    const authAs = headerValue(lines, EXCHANGE_AUTH_AS)?.toLowerCase();
    if (authAs !== 'anonymous') return authAs ? `Exchange did not judge its sender (AuthAs ${authAs})` : 'it carries no verdict of Exchange Online';
    if (authservId !== null || !results.some((r) => r.method === 'compauth')) return 'its topmost Authentication-Results is not Exchange Online’s';
  }
  return null;
}
const RESULTS: readonly MailAuthResult[] = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'];

/** Comments (parenthesised, possibly nested) carry nothing a verdict depends on. */
function withoutComments(value: string): string {
  let out = value;
  for (let i = 0; i < 10 && /\([^()]*\)/.test(out); i++) out = out.replace(/\([^()]*\)/g, ' ');
  return out;
}

/** One Authentication-Results value: its authserv-id (null when the provider writes none, as Exchange does) and each method's result. */
export function parseAuthenticationResults(value: string): { authservId: string | null; results: ResInfo[] } {
  const parts = withoutComments(value.replace(/\r?\n[ \t]+/g, ' '))
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean);
  let authservId: string | null = null;
  if (parts.length && !parts[0].includes('=')) authservId = parts.shift()!.split(/\s+/)[0].toLowerCase();
  const results: ResInfo[] = [];
  for (const part of parts) {
    const [head, ...rest] = part.split(/\s+/);
    const m = /^([a-z0-9-]+)(?:\/\d+)?=([a-z]+)$/i.exec(head);
    if (!m) continue;
    const props: Record<string, string> = {};
    for (const p of rest) {
      const at = p.indexOf('=');
      if (at > 0) props[p.slice(0, at).toLowerCase()] = p.slice(at + 1).replace(/^"|"$/g, '');
    }
    results.push({ method: m[1].toLowerCase(), result: m[2].toLowerCase(), props });
  }
  return { authservId, results };
}

/** The topmost Authentication-Results header: the one the receiving provider wrote. */
function topmost(lines: HeaderLines): string | null {
  const line = lines.find((l) => l.key.toLowerCase() === 'authentication-results')?.line;
  return line === undefined ? null : line.slice(line.indexOf(':') + 1);
}

/** mailauth's relaxed-alignment check, with a resolver that knows only a default DMARC record: nothing is looked up. */
const RELAXED: DNSResolver = async (name, rrtype) => {
  if (rrtype === 'TXT' && name.startsWith('_dmarc.')) return [['v=DMARC1; p=none']];
  throw Object.assign(new Error(`${name} ${rrtype}: no such record`), { code: 'ENODATA' });
};

async function aligned(fromAddress: string, domain: string): Promise<boolean> {
  const r = await dmarc({ headerFrom: fromAddress, spfDomains: [domain], dkimDomains: [], resolver: RELAXED });
  return Boolean(r && r.status?.result === 'pass');
}

const domainOf = (v: string) => v.slice(v.lastIndexOf('@') + 1).toLowerCase();
const resultOf = (v: string | undefined): MailAuthResult => (RESULTS.includes(v as MailAuthResult) ? (v as MailAuthResult) : 'none');

export async function proveMailboxSender(provider: MailboxProvider, headerLines: HeaderLines, from: { address: string } | null, fromCount: number): Promise<MailboxSenderProof> {
  const header = topmost(headerLines);
  if (!from || fromCount !== 1) return { verified: false, dmarc: 'none', unproven: 'the message does not name exactly one From address' };
  if (header === null) return { verified: false, dmarc: 'none', unproven: 'the provider recorded no authentication results for it' };
  const { authservId, results } = parseAuthenticationResults(header);
  const foreign = notTheProviders(provider, headerLines, authservId, results);
  if (foreign) return { verified: false, dmarc: 'none', unproven: foreign };
  const fromDomain = domainOf(from.address);
  const dmarcResult = results.find((r) => r.method === 'dmarc');
  const dmarcVerdict = resultOf(dmarcResult?.result);
  const why: string[] = [dmarcResult ? `DMARC ${dmarcResult.result}` : `no DMARC result for ${fromDomain}`];
  if (dmarcVerdict === 'fail') return { verified: false, dmarc: 'fail', unproven: why.join('; ') };
  const dmarcFrom = dmarcResult?.props['header.from']?.toLowerCase();
  if (dmarcVerdict === 'pass' && (!dmarcFrom || dmarcFrom === fromDomain)) return { verified: true, dmarc: 'pass', unproven: null };
  for (const r of results.filter((x) => x.method === 'dkim')) {
    const d = r.props['header.d'] ?? (r.props['header.i'] ? domainOf(r.props['header.i']) : undefined);
    if (r.result === 'pass' && d && (await aligned(from.address, d))) return { verified: true, dmarc: dmarcVerdict, unproven: null };
    why.push(`DKIM ${r.result}${d ? ` for ${d}` : ''}`);
  }
  for (const r of results.filter((x) => x.method === 'spf')) {
    const mailFrom = r.props['smtp.mailfrom'];
    const d = mailFrom ? domainOf(mailFrom) : undefined;
    if (r.result === 'pass' && d && (await aligned(from.address, d))) return { verified: true, dmarc: dmarcVerdict, unproven: null };
    why.push(`SPF ${r.result}${d ? ` for ${d}` : ''}`);
  }
  return { verified: false, dmarc: dmarcVerdict, unproven: `${why.join('; ')} (nothing aligned with ${fromDomain} passed)` };
}
