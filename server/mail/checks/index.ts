import type { InboundChecks } from '@/db/schema';
import { logger } from '@/server/logger';
import { clamdScan } from './clamd';
import { describeTarget, parseDaemonUrl, type DaemonTarget } from './daemon-socket';
import { spamdCheck } from './spamd';

/*
 * The spam and virus checks of inbound mail (spec 5, Inbound mail checks): spamd and clamd,
 * reached over their own protocols at STEWARD_SPAMD_URL and STEWARD_CLAMD_URL. A check that is
 * not configured is `off`, and says so on every stored message; a checker that cannot answer
 * (down, slow, confused) is an `error` with the reason, and the mail is kept: an outage of a
 * filter must not turn into lost mail. Only a definite answer (spam, a virus) refuses mail.
 */

export type MailChecksConfig = { spamd: DaemonTarget | null; clamd: DaemonTarget | null };

export const CHECKS_OFF: MailChecksConfig = { spamd: null, clamd: null };

/** The checkers from the environment; an unparseable URL throws at start-up rather than turning a check off. */
export function mailChecksConfig(env: Record<string, string | undefined> = process.env): MailChecksConfig {
  const spamd = env.STEWARD_SPAMD_URL?.trim();
  const clamd = env.STEWARD_CLAMD_URL?.trim();
  return {
    spamd: spamd ? parseDaemonUrl('STEWARD_SPAMD_URL', spamd, 'spamd', 783) : null,
    clamd: clamd ? parseDaemonUrl('STEWARD_CLAMD_URL', clamd, 'clamd', 3310) : null,
  };
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 300);

async function spamCheck(target: DaemonTarget | null, message: Buffer): Promise<InboundChecks['spam']> {
  if (!target) return { status: 'off' };
  try {
    const v = await spamdCheck(target, message);
    return { status: v.spam ? 'spam' : 'clean', score: v.score, threshold: v.threshold };
  } catch (err) {
    logger.warn({ err, spamd: describeTarget(target) }, 'inbound mail: the spam check could not be made; the message is kept');
    return { status: 'error', detail: oneLine((err as Error).message) };
  }
}

async function virusCheck(target: DaemonTarget | null, message: Buffer): Promise<InboundChecks['virus']> {
  if (!target) return { status: 'off' };
  try {
    const v = await clamdScan(target, message);
    return v.infected ? { status: 'infected', signature: v.signature } : { status: 'clean' };
  } catch (err) {
    logger.warn({ err, clamd: describeTarget(target) }, 'inbound mail: the virus check could not be made; the message is kept');
    return { status: 'error', detail: oneLine((err as Error).message) };
  }
}

/**
 * Both checks of one message, side by side. spamd is given `traceHeaders` (this server's
 * Received line and authentication results) before the message, as an MTA hands mail to its
 * filter: SpamAssassin's network tests read the client's address from them.
 */
export async function checkMessage(config: MailChecksConfig, raw: Buffer, traceHeaders: string): Promise<InboundChecks> {
  const [spam, virus] = await Promise.all([spamCheck(config.spamd, Buffer.concat([Buffer.from(traceHeaders, 'utf8'), raw])), virusCheck(config.clamd, raw)]);
  return { spam, virus };
}
