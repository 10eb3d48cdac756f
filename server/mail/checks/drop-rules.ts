import type { InboundChecks } from '@/db/schema';
import type { Authentication } from './authentication';

/*
 * When inbound mail is refused in the SMTP dialogue instead of kept (spec 1, Channel behavior):
 * DMARC fails for a domain that asks for rejection, SPF and DKIM both fail, spamd says spam,
 * clamd finds a virus. Each is a definite verdict: `none`, `softfail` and `temperror` results,
 * and a checker that could not answer, are stored with the message and never refuse it. A
 * refused message is not stored; the sending server hears why (5.7.1) and tells its sender.
 */

export type Drop = { responseCode: 550 | 554; message: string; reason: 'dmarc_reject' | 'spf_dkim_fail' | 'spam' | 'virus' };

/** What the authentication alone refuses, decided before the content checks are asked. */
export function authenticationDrop(a: Authentication): Drop | null {
  if (a.dmarcRejects) {
    const domain = a.verdict.dmarc.domain ?? 'the sender’s domain';
    return { responseCode: 550, reason: 'dmarc_reject', message: `5.7.1 Rejected by the DMARC policy of ${domain}: this message is not authenticated as coming from it` };
  }
  if (a.verdict.spf.result === 'fail' && a.verdict.dkim.result === 'fail') {
    return { responseCode: 550, reason: 'spf_dkim_fail', message: '5.7.1 Rejected: both SPF and DKIM failed for this message' };
  }
  return null;
}

/** What the spam and virus checks refuse; a virus first (it is the more certain verdict). */
export function contentDrop(c: InboundChecks): Drop | null {
  if (c.virus.status === 'infected') {
    return { responseCode: 554, reason: 'virus', message: `5.7.1 Rejected: the message contains a virus (${c.virus.signature ?? 'unnamed'})` };
  }
  if (c.spam.status === 'spam') {
    const score = c.spam.score !== undefined && c.spam.threshold !== undefined ? ` (score ${c.spam.score} of ${c.spam.threshold})` : '';
    return { responseCode: 550, reason: 'spam', message: `5.7.1 Rejected as spam${score}` };
  }
  return null;
}
