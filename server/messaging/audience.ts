import type { TaintSource } from '@/db/schema';

/*
 * The audience rule (issue 40; docs/security.md, "Who reads a reply"), the one place it is
 * decided: a message is an outward action unless every person who can read it is the owner.
 *
 * - Only the owner reads it (their own 1:1 thread: a DM, their own number, a mail to them alone):
 *   it is conversation, sent as the chat's answer.
 * - Anyone else can read it too (a group, a shared channel, a thread with others, a mail with
 *   other recipients), or who reads it is not known: it is an outward action, staged as a
 *   dispatch like any send_message or send_email. Staged from a turn that read content from
 *   outside the owner (`taint`), it waits for the owner (hold.ts gives it `heldBecause`); from
 *   an untainted turn it is released as the owner's supervision matrix says for its action type.
 *
 * The rule knows nothing of channels: each channel says who can read a reply into a thread
 * (reply-readers.ts), and this decides. A channel added later (calendars, Telegram, …) answers
 * the same question and gets the same rule.
 */

/** Everyone who can read the message: addresses, numbers, or a name for a room whose members are not known. */
export type Readers = { readers: readonly string[]; where: string };

export type Audience = { ownerOnly: true } | { ownerOnly: false; others: string[]; where: string };

/** How a reply goes out: as conversation (to the owner alone), or as an outward action. */
export type ReplyRoute = { kind: 'conversation' } | { kind: 'outward'; others: string[]; where: string; taint: TaintSource[] };

const norm = (v: string) => {
  const angled = /<([^<>]+)>\s*$/.exec(v);
  return (angled ? angled[1]! : v).trim().toLowerCase();
};

/** Who reads it besides the owner (`own`: the owner's primary email and verified identifiers). Nobody known to read it is not "the owner alone". */
export function audienceOf({ readers, where }: Readers, own: ReadonlySet<string>): Audience {
  const mine = new Set([...own].map(norm));
  const others = [...new Set(readers.filter((r) => !mine.has(norm(r))))];
  return readers.length && !others.length ? { ownerOnly: true } : { ownerOnly: false, others: others.length ? others : [where], where };
}

/** The rule: conversation only when the owner alone reads it. */
export function replyRoute(audience: Audience, taint: readonly TaintSource[]): ReplyRoute {
  if (audience.ownerOnly) return { kind: 'conversation' };
  return { kind: 'outward', others: audience.others, where: audience.where, taint: [...taint] };
}
