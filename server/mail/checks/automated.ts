import type { InboundMessageRow } from '@/db/schema';

/*
 * Automated mail (RFC 3834). Inbound: a message marked `Auto-Submitted` (anything but `no`) was
 * written by a machine (a vacation notice, a bounce, a notification); answering it
 * automatically is how two responders start mailing each other forever. `Precedence: bulk`,
 * `junk` or `list` is the older mark of the same, still the only one many list servers and
 * responders send, so it counts too. Outbound: Steward's own notices carry
 * `Auto-Submitted: auto-generated` (mailer.ts), so other responders leave them alone.
 */

type HeaderLine = { key: string; line: string };

/** A header's value from its raw line, unfolded. */
const valueOf = (lines: readonly HeaderLine[], key: string) => {
  const line = lines.find((l) => l.key.toLowerCase() === key)?.line;
  return line === undefined ? null : line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
};

/**
 * What marks a message as automated, as stored in `auto_submitted`: the Auto-Submitted value
 * (`auto-replied`, `auto-generated; ...`), or `precedence: bulk|junk|list` when only that header
 * says so; null for mail a person wrote.
 */
export function automatedMarker(lines: readonly HeaderLine[]): string | null {
  const submitted = valueOf(lines, 'auto-submitted');
  const keyword = submitted?.split(/[;(\s]/)[0].toLowerCase();
  if (submitted && keyword && keyword !== 'no') return submitted.slice(0, 200);
  const precedence = valueOf(lines, 'precedence')?.toLowerCase();
  if (precedence && ['bulk', 'junk', 'list'].includes(precedence)) return `precedence: ${precedence}`;
  return null;
}

/** Mailboxes that are never a person (RFC 3834, section 2): bounces and list machinery. */
const MACHINE_MAILBOX = /^(mailer-daemon|owner-.+|.+-request|.+-owner)@/i;

/**
 * Whether Steward may answer this inbound message without a person deciding to: never to
 * automated mail, to a bounce (no envelope sender), to list or bounce machinery, or to a sender
 * whose From address is not proven (answering a forged From is how backscatter reaches
 * bystanders).
 */
export function mayAutoReply(row: Pick<InboundMessageRow, 'autoSubmitted' | 'mailFrom' | 'senderVerified' | 'fromAddress'>): boolean {
  if (row.autoSubmitted !== null || !row.senderVerified || !row.mailFrom) return false;
  return !MACHINE_MAILBOX.test(row.mailFrom) && !MACHINE_MAILBOX.test(row.fromAddress);
}
