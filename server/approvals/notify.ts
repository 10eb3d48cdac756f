import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, assistants, cartRejectLinks, carts, tasks, users, type DispatchContent, type HeldBecause, type TaintSource } from '@/db/schema';
import { accountForHost } from '@/server/hosted/accounts';
import { siteOrigin } from '@/server/hosted/origin';
import { publicOrigin } from '@/server/http/public-origin';
import { logger } from '@/server/logger';
import { sendMail } from '@/server/mail/mailer';
import { noteThread } from '@/server/notices/threads';
import { newRejectToken, REJECT_LINK_TTL_MS, rejectUrl } from './reject-link';
import { shownDispatches } from './versions';

/*
 * The approval email (spec document 2, Approval (cart) statuses: "Reject link in an approval
 * message"): when a cart reaches pending_approval its owner is mailed, through the mail
 * adapter, a link to /approvals on the account's hosted origin and a one-time Reject link.
 *
 * Called after the transaction that moved the cart to pending_approval has committed (a durable
 * step of the run that submitted it), so it may run more than once: one email per cart. A
 * notifier claims the cart's link row for a minute while it sends; a retry after a crash before
 * the email was recorded as sent mints a new token (the old one, never mailed or lost with the
 * crash, stops working) and sends again. The email is never sent for a cart that is no longer
 * pending approval.
 */

/** How long a notifier holds the claim while it sends; a notifier that died frees it after this. */
const CLAIM_MS = 60_000;

export type NotifyOutcome =
  | { sent: true; status: 'sent' | 'recorded' }
  /** The SMTP server refused it: the claim is released so a later call tries again. */
  | { sent: false; reason: 'mail_failed' }
  | { sent: false; reason: 'not_found' | 'not_pending' | 'already_sent' | 'in_progress' };

const list = (xs: string[]) => xs.join(', ') || 'nobody';

/** One line per staged action: what it is and to whom, as the approvals page shows it in full. */
function summaryLine(c: DispatchContent): string {
  const title = typeof c.payload?.title === 'string' ? c.payload.title : c.subject;
  if (c.type === 'email') return `Email to ${list([...c.to, ...c.cc, ...c.bcc])}${c.subject ? `: "${c.subject}"` : ''}`;
  if (c.type === 'message') return `${c.platform} message to ${list(c.to)}`;
  if (c.type === 'call') return `Phone call to ${list(c.to)}${c.description ? `: ${c.description}` : ''}`;
  if (c.type === 'calendar_event') return `Calendar invitation${title ? ` "${title}"` : ''} to ${list(c.to)}`;
  return c.description ?? 'An action of an installed skill';
}

/** How many of a held dispatch's sources the email names; the approvals page lists them all. */
const MAX_SOURCES = 10;
const MAX_REF = 200;

/**
 * A source's reference as one harmless line: it is text from outside (a sender's address, a page's
 * URL), so control and line-break characters become spaces and a long one is cut, and it can
 * neither add lines to the email nor pass for one of Steward's own.
 */
function plainRef(ref: string): string {
  const flat = ref.replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > MAX_REF ? `${flat.slice(0, MAX_REF - 1)}…` : flat || '(unnamed)';
}

const SOURCE_LABEL: Record<TaintSource['kind'], string> = {
  email: 'email from',
  web: 'web page',
  file: 'file',
  mcp: 'skill tool',
  message: 'message from',
  trigger: 'trigger',
};

/** The line under a held dispatch: why it waits for the person, and what the task read. */
export function heldLine(held: HeldBecause | null | undefined): string | null {
  if (!held || held.kind !== 'untrusted_input') return null;
  const named = held.sources.slice(0, MAX_SOURCES).map((s) => `${SOURCE_LABEL[s.kind] ?? s.kind} ${plainRef(s.ref)}`);
  const more = held.sources.length - named.length;
  const list = named.length ? `: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}` : '';
  return `Held for your approval because the task read content from outside${list}. Check it says what you want before approving.`;
}

/** Mails the owner of a cart pending approval the link to /approvals and a one-time Reject link (once per cart). */
export async function notifyPendingApproval(db: Db, cartId: string, now = new Date()): Promise<NotifyOutcome> {
  const claimed = await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ cart: carts, taskTitle: tasks.title, assistantName: assistants.name, assistantEmail: assistants.email, userEmail: users.email, accountName: accounts.name, hostedDomain: accounts.hostedDomain })
      .from(carts)
      .innerJoin(tasks, eq(tasks.id, carts.taskId))
      .innerJoin(users, eq(users.id, carts.userId))
      .innerJoin(accounts, eq(accounts.id, carts.accountId))
      .leftJoin(assistants, eq(assistants.id, carts.assistantId))
      .where(eq(carts.id, cartId))
      .for('update', { of: carts });
    if (!row) return { skipped: 'not_found' as const };
    if (row.cart.status !== 'pending_approval') return { skipped: 'not_pending' as const };
    const [existing] = await tx.select().from(cartRejectLinks).where(eq(cartRejectLinks.cartId, cartId)).for('update');
    if (existing?.mailedAt) return { skipped: 'already_sent' as const };
    if (existing?.sendingUntil && existing.sendingUntil > now) return { skipped: 'in_progress' as const };
    const { token, tokenHash } = newRejectToken();
    const expiresAt = new Date(now.getTime() + REJECT_LINK_TTL_MS);
    const claim = { tokenHash, contentHash: row.cart.contentHash, expiresAt, sendingUntil: new Date(now.getTime() + CLAIM_MS) };
    await tx
      .insert(cartRejectLinks)
      .values({ accountId: row.cart.accountId, cartId, userId: row.cart.userId, ...claim })
      .onConflictDoUpdate({ target: cartRejectLinks.cartId, set: claim });
    const shown = (await shownDispatches(tx, [cartId])).get(cartId) ?? [];
    const lines = shown.flatMap((d) => {
      const held = heldLine(d.dispatch.heldBecause);
      return [`- ${summaryLine(d.content)}`, ...(held ? [`  ${held}`] : [])];
    });
    return { skipped: null, row, token, tokenHash, expiresAt, lines, count: shown.length };
  });
  if (claimed.skipped !== null) return { sent: false, reason: claimed.skipped };

  const { row, token, tokenHash, expiresAt, lines, count: actions } = claimed;
  const origin = siteOrigin(row.hostedDomain).origin;
  const reject = rejectUrl(origin, token);
  const who = row.assistantName ?? 'Your assistant';
  const one = actions === 1;
  const count = one ? 'an action' : `${actions} actions`;
  const them = one ? 'it' : 'them';
  // An account without a hosted domain shares the public origin; once several do, that host opens no
  // account's pages, so the email offers /approvals only where it opens. The reject link works anyway.
  const pagesServed = row.hostedDomain !== null || (await accountForHost(db, publicOrigin().host))?.id === row.cart.accountId;
  const text = [
    `${who} staged ${count} for the task "${row.taskTitle}" and is waiting for your approval. Nothing is sent until you approve.`,
    '',
    ...lines,
    '',
    pagesServed
      ? `Review ${them} exactly as ${one ? 'it' : 'they'} will be sent, edit, approve or cancel: ${origin}/approvals`
      : `Review, edit or approve ${them} in the app you use with your assistant.`,
    '',
    `To reject ${them} without signing in, open this link and confirm (it works once, until ${expiresAt.toUTCString()}):`,
    reject,
  ].join('\n');
  // Threaded like every notice: the user's answer reaches the assistant and goes to the task (never as an approval).
  const messageId = `<approval.${cartId}.${tokenHash.slice(0, 12)}@${(process.env.STEWARD_ASSISTANT_EMAIL_DOMAIN ?? 'steward.local').trim()}>`;
  const { status } = await sendMail(db, {
    accountId: row.cart.accountId,
    to: row.userEmail,
    subject: `Approval needed: ${row.taskTitle}`,
    text,
    redact: [reject],
    messageId,
    ...(row.assistantEmail ? { replyTo: row.assistantEmail } : {}),
  });
  if (status !== 'failed') {
    await noteThread(db, { accountId: row.cart.accountId, userId: row.cart.userId, assistantId: row.cart.assistantId, channel: 'email', externalRef: messageId, direction: 'out', taskId: row.cart.taskId });
  }

  const mine = and(eq(cartRejectLinks.cartId, cartId), eq(cartRejectLinks.tokenHash, tokenHash), isNull(cartRejectLinks.mailedAt));
  if (status === 'failed') {
    // The link in the refused email stays valid but unmailed: the next notifier replaces it.
    await db.update(cartRejectLinks).set({ sendingUntil: null }).where(mine);
    logger.warn({ cartId }, 'approval email: the SMTP server refused it; the next notification tries again');
    return { sent: false, reason: 'mail_failed' };
  }
  await db.update(cartRejectLinks).set({ mailedAt: new Date(), sendingUntil: null }).where(mine);
  return { sent: true, status };
}
