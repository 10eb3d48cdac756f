import { Resolver } from 'node:dns/promises';
import { authenticate, dmarc, type AuthenticateResult, type DNSResolver } from 'mailauth';
import type { MailAuthResult, MailAuthVerdict } from '@/db/schema';
import { logger } from '@/server/logger';

/*
 * SPF, DKIM and DMARC of one inbound message (mailauth), and what they prove about its From
 * address. A From header is text anyone can write; it is proven only when the domain it names
 * vouches for this message: DMARC passes, or, where the domain publishes no DMARC policy (or
 * its lookup failed), SPF passes for an envelope domain aligned with it, or a DKIM signature
 * passes whose signing domain is aligned with it. Aligned means relaxed DMARC alignment: the
 * same organizational domain. A DMARC `fail` is the domain's own word that the message is not
 * its own, and no SPF or DKIM result outweighs it.
 */

export type SenderProof = {
  verified: boolean;
  /** What proved it. */
  by: 'dmarc' | 'spf' | 'dkim' | null;
  /** Why not, in words a person reads (which checks failed, for which domains); null when proven. */
  unproven: string | null;
};

export type Authentication = {
  verdict: MailAuthVerdict;
  sender: SenderProof;
  /** DMARC failed and the domain asks receivers to reject such mail (p=reject, or sp=reject for a subdomain, at 100%). */
  dmarcRejects: boolean;
  /** Received-SPF and Authentication-Results as mailauth wrote them (for the spam check). */
  traceHeaders: string;
};

/**
 * Lookups through DNS_SERVERS (comma-separated host:port) when set, as domain verification does;
 * undefined leaves mailauth on the system's resolvers. A missing record answers ENODATA/ENOTFOUND,
 * which mailauth reads as "none".
 */
export function mailDnsResolver(): DNSResolver | undefined {
  const servers = process.env.DNS_SERVERS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!servers?.length) return undefined;
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers(servers);
  return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>;
}

const RESULTS: readonly MailAuthResult[] = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'];

function result(value: string | undefined): MailAuthResult {
  if (value === 'temperr') return 'temperror';
  return RESULTS.includes(value as MailAuthResult) ? (value as MailAuthResult) : 'none';
}

/** One result for all signatures: `pass` when any passed, `fail` only when every one failed, else the first one's. */
function dkimResult(signatures: MailAuthVerdict['dkim']['signatures'], first: string | undefined): MailAuthResult {
  if (signatures.some((s) => s.result === 'pass')) return 'pass';
  if (signatures.length && signatures.every((s) => s.result === 'fail')) return 'fail';
  return signatures[0]?.result ?? result(first);
}

/** mailauth's answer reduced to what Steward keeps: a result per check, the domains, the header. */
function verdictOf(r: AuthenticateResult): MailAuthVerdict {
  const signatures = (r.dkim?.results ?? [])
    .filter((s) => s.signingDomain)
    .map((s) => ({ domain: s.signingDomain, selector: s.selector ?? null, result: result(s.status?.result), aligned: Boolean(s.status?.aligned) }));
  return {
    spf: { result: r.spf ? result(r.spf.status?.result) : 'none', domain: r.spf ? r.spf.domain || null : null },
    dkim: { result: dkimResult(signatures, r.dkim?.results?.[0]?.status?.result), signatures },
    dmarc: { result: r.dmarc ? result(r.dmarc.status?.result) : 'none', domain: r.dmarc ? r.dmarc.domain || null : null, policy: r.dmarc ? r.dmarc.policy || null : null },
    header: r.headers ?? '',
  };
}

/**
 * A resolver that knows one record: a DMARC policy with every default (relaxed alignment) for
 * any domain. Handing it to mailauth's own DMARC evaluation asks "would SPF align under relaxed
 * alignment?" with mailauth's organizational-domain rules (public suffix list included), for
 * domains that publish no policy of their own; nothing is looked up.
 */
const RELAXED_POLICY: DNSResolver = async (name, rrtype) => {
  if (rrtype === 'TXT' && name.startsWith('_dmarc.')) return [['v=DMARC1; p=none']];
  throw Object.assign(new Error(`${name} ${rrtype}: no such record`), { code: 'ENODATA' });
};

async function spfAligned(fromAddress: string, spfDomain: string): Promise<boolean> {
  const relaxed = await dmarc({ headerFrom: fromAddress, spfDomains: [spfDomain], dkimDomains: [], resolver: RELAXED_POLICY });
  return Boolean(relaxed && relaxed.alignment?.spf?.result);
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** Each check as it stood, in words: what the person is told when a message is not taken as its sender's. */
function whyUnproven(v: MailAuthVerdict, fromDomain: string, spfIsAligned: boolean, oneFrom: boolean): string {
  const notAligned = ` (not aligned with ${fromDomain})`;
  const parts = oneFrom ? [] : ['the message names more than one From address'];
  parts.push(v.dmarc.result === 'none' ? `no DMARC policy for ${fromDomain}` : `DMARC ${v.dmarc.result} for ${v.dmarc.domain ?? fromDomain}`);
  parts.push(`SPF ${v.spf.result}${v.spf.domain ? ` for the envelope sender's domain ${v.spf.domain}` : ''}${v.spf.result === 'pass' && !spfIsAligned ? notAligned : ''}`);
  if (!v.dkim.signatures.length) parts.push(v.dkim.result === 'none' ? 'no DKIM signature' : `DKIM ${v.dkim.result}`);
  for (const s of v.dkim.signatures) parts.push(`DKIM ${s.result} for ${s.domain}${s.result === 'pass' && !s.aligned ? notAligned : ''}`);
  return parts.join('; ');
}

async function proofOf(r: AuthenticateResult, v: MailAuthVerdict, fromAddress: string): Promise<SenderProof> {
  const fromDomain = domainOf(fromAddress);
  // mailauth judged the From header(s) it read; they must name exactly the address Steward reads,
  // or a second From header could lend its proof to the first.
  const headerFrom = r.dkim?.headerFrom ?? [];
  const oneFrom = headerFrom.length === 1 && headerFrom[0].toLowerCase() === fromAddress.toLowerCase();
  const spfIsAligned = v.spf.result === 'pass' && Boolean(v.spf.domain) && (await spfAligned(fromAddress, v.spf.domain!));
  const unproven = { verified: false, by: null, unproven: whyUnproven(v, fromDomain, spfIsAligned, oneFrom) } as const;
  if (!oneFrom || v.dmarc.result === 'fail') return unproven;
  if (v.dmarc.result === 'pass') return { verified: true, by: 'dmarc', unproven: null };
  if (v.dkim.signatures.some((s) => s.result === 'pass' && s.aligned)) return { verified: true, by: 'dkim', unproven: null };
  if (spfIsAligned) return { verified: true, by: 'spf', unproven: null };
  return unproven;
}

/** DMARC's own instruction for a failing message: reject, unless the domain samples fewer than all (pct). */
function dmarcRejects(r: AuthenticateResult): boolean {
  if (!r.dmarc || r.dmarc.status?.result !== 'fail') return false;
  return r.dmarc.policy?.toLowerCase() === 'reject' && (r.dmarc.pct === undefined || Number(r.dmarc.pct) >= 100);
}

/**
 * Authenticates one message. A lookup that cannot be made is a stored `temperror` (and an
 * unproven sender), never a lost message.
 */
export async function authenticateMail(raw: Buffer, client: { ip: string; helo: string | null; mailFrom: string | null; fromAddress: string }): Promise<Authentication> {
  try {
    const r = await authenticate(raw, {
      ip: client.ip,
      helo: client.helo || undefined,
      sender: client.mailFrom ?? '',
      resolver: mailDnsResolver(),
      disableArc: true,
      disableBimi: true,
    });
    const verdict = verdictOf(r);
    return { verdict, sender: await proofOf(r, verdict, client.fromAddress), dmarcRejects: dmarcRejects(r), traceHeaders: r.headers ?? '' };
  } catch (err) {
    logger.warn({ err }, 'inbound mail: SPF/DKIM/DMARC could not be checked');
    const temp = { result: 'temperror' as const };
    return {
      verdict: { spf: { ...temp, domain: null }, dkim: { ...temp, signatures: [] }, dmarc: { ...temp, domain: null, policy: null }, header: '' },
      sender: { verified: false, by: null, unproven: 'SPF, DKIM and DMARC could not be checked (temperror)' },
      dmarcRejects: false,
      traceHeaders: '',
    };
  }
}
