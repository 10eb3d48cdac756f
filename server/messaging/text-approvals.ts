import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { assistants, carts, outboundTexts, tasks, textApprovalCodes, users, type DispatchContent, type UserRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { decideCart } from '@/server/approvals/decide';
import { REJECT_LINK_TTL_MS } from '@/server/approvals/reject-link';
import { signalAfterCommit } from '@/server/approvals/signals';
import { shownDispatches } from '@/server/approvals/versions';
import { AppError } from '@/server/http/errors';
import { budgetUsed, poolOf, trySendBudgets, type SendBudget } from '@/server/http/rate-limit';
import { activeLineFor } from '@/server/channels/phone-lines';
import { ensureAppSecret } from '@/server/secrets/app-secret';
import { defaultPreferences, deepMerge } from '@/server/user-record/defaults';
import { noticeTextAllowed } from '@/server/notices/budget';
import { MAX_TEXT, sendText } from '@/server/channels/texts/send-text';
import { verifiedPhones } from '@/server/identifiers/verified-phones';

/*
 * Approvals by text (preferences.notifications.approvalsByText): a cart waiting for its owner is
 * texted to them with a short code bound to the cart's contentHash at that moment ("reply YES
 * 4821 to send, NO 4821 to reject"). The approvals API refuses channel credentials on purpose (a
 * channel proves a number, not a decision); this is the one exception, and its rule is here and
 * nowhere else:
 * - only a text from the owner's verified number, proven by the provider's signed webhook
 *   (the layer's `owner` writer), can use a code, and only the owner's own codes; and only when
 *   it comes from the number the code was texted to, to the line that texted it (issue 40): a
 *   code read elsewhere and sent to another of the deployment's lines decides nothing;
 * - a code is used once, and only while the cart still waits with the very content it was sent
 *   for (an edit changes the hash: the code then refuses, and nothing is sent), and it dies with
 *   the cart or after 7 days, whichever is first;
 * - YES approves as the owner (the audit names the user and `via: text_code`), NO rejects.
 * Anything else the owner texts — a wrong code included — is a conversation message.
 * Only an HMAC of each code is kept.
 */

const REPLY = /^\s*(yes|no)\s+(\d{4})\s*[.!]?\s*$/i;

export const parseApprovalReply = (body: string): { decision: 'approve' | 'reject'; code: string } | null => {
  const m = REPLY.exec(body);
  return m ? { decision: m[1]!.toLowerCase() === 'yes' ? 'approve' : 'reject', code: m[2]! } : null;
};

async function codeHash(db: Db, userId: string, code: string): Promise<string> {
  const secret = await ensureAppSecret(db, 'text-approval-codes', () => randomBytes(32).toString('hex'));
  return createHmac('sha256', secret).update(`${userId}:${code}`).digest('hex');
}

export const approvalsByText = (prefs: unknown) => (deepMerge(defaultPreferences(), prefs).notifications as { approvalsByText?: unknown }).approvalsByText === true;

const line = (c: DispatchContent) => (c.type === 'email' ? `Email to ${c.to.join(', ')}${c.subject ? `: "${c.subject}"` : ''}` : c.type === 'message' ? `${c.platform} message to ${c.to.join(', ')}` : (c.description ?? c.type));

export type OfferOutcome = { sent: true; code: string } | { sent: false; reason: string };

/** The key the code's text is recorded under (outbound_texts): it names the line that sent it and the number it went to. */
const approvalIntent = (cartId: string, contentHash: string) => `approval:${cartId}:${contentHash}`;

/** Whether the code of this cart version was texted from `line` to `phone`. */
async function textedBetween(tx: Tx, code: { cartId: string; contentHash: string }, via: { from: string; to: string }): Promise<boolean> {
  const [sent] = await tx
    .select({ id: outboundTexts.id })
    .from(outboundTexts)
    .where(and(eq(outboundTexts.intentKey, approvalIntent(code.cartId, code.contentHash)), eq(outboundTexts.fromNumber, via.to), eq(outboundTexts.toNumber, via.from)))
    .limit(1);
  return Boolean(sent);
}

/**
 * Texts the owner of a cart pending approval the request and its code, once per version of the
 * cart. Called once the cart waits for approval (the cart-notify step); a user who did not choose
 * approvals by text, or has no verified number, is left to the approval email.
 */
export async function offerApprovalByText(db: Db, cartId: string, now = new Date()): Promise<OfferOutcome> {
  const [row] = await db
    .select({ cart: carts, user: users, taskTitle: tasks.title, assistantName: assistants.name })
    .from(carts)
    .innerJoin(users, eq(users.id, carts.userId))
    .innerJoin(tasks, eq(tasks.id, carts.taskId))
    .leftJoin(assistants, eq(assistants.id, carts.assistantId))
    .where(eq(carts.id, cartId));
  if (!row || row.cart.status !== 'pending_approval') return { sent: false, reason: 'not_pending' };
  if (!approvalsByText(row.user.preferences)) return { sent: false, reason: 'not_chosen' };
  const [to] = await verifiedPhones(db, row.user.id);
  if (!to) return { sent: false, reason: 'no_verified_phone' };
  // From the cart's assistant's own line only: the answer must reach a line Steward serves, and
  // Steward's own sender (STEWARD_TWILIO_SMS_FROM) is no assistant's, so a YES to it would be lost.
  const from = await activeLineFor(db, row.cart.assistantId, 'sms');
  if (!from) return { sent: false, reason: 'no_sms_line' };

  // A code no other live code of the user shares, so "YES 4821" names one cart.
  let code = '';
  let hash = '';
  for (let i = 0; i < 20 && !hash; i++) {
    code = String(randomInt(0, 10_000)).padStart(4, '0');
    const candidate = await codeHash(db, row.user.id, code);
    const [clash] = await db
      .select({ id: textApprovalCodes.id })
      .from(textApprovalCodes)
      .where(and(eq(textApprovalCodes.userId, row.user.id), eq(textApprovalCodes.codeHash, candidate), isNull(textApprovalCodes.usedAt), gt(textApprovalCodes.expiresAt, now)))
      .limit(1);
    if (!clash) hash = candidate;
  }
  if (!hash) return { sent: false, reason: 'no_free_code' };
  const [created] = await db
    .insert(textApprovalCodes)
    .values({ accountId: row.cart.accountId, userId: row.user.id, cartId, contentHash: row.cart.contentHash, codeHash: hash, expiresAt: new Date(now.getTime() + REJECT_LINK_TTL_MS) })
    .onConflictDoNothing()
    .returning({ id: textApprovalCodes.id });
  if (!created) return { sent: false, reason: 'already_offered' };
  // Past the number's budget the request waits in the approval email and the app (server/notices/budget.ts).
  if (!(await noticeTextAllowed(db, row.cart.accountId, to))) return { sent: false, reason: 'rate_limited' };

  const shown = (await shownDispatches(db, [cartId])).get(cartId) ?? [];
  const text = [
    `${row.assistantName ?? 'Your assistant'} is waiting for your approval for "${row.taskTitle}":`,
    ...shown.map((d) => `- ${line(d.content)}`),
    `Reply YES ${code} to send, NO ${code} to reject. Nothing is sent until you do.`,
  ].join('\n');
  const body = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 80)}…\nReply YES ${code} to send, NO ${code} to reject.` : text;
  const delivery = await sendText(db, {
    accountId: row.cart.accountId,
    channel: 'sms',
    from,
    to,
    body,
    purpose: 'approval',
    intentKey: approvalIntent(cartId, row.cart.contentHash),
  });
  if (delivery.state === 'failed') return { sent: false, reason: delivery.reason };
  return { sent: true, code };
}

export type TextDecision = { handled: false } | { handled: true; reply: string; cartId: string | null; outcome: 'approved' | 'rejected' | 'refused' };

/**
 * Wrong codes a person may text in an hour before no code of theirs decides anything: four digits
 * are 10,000 guesses, and a sender's number is only as sure as its provider's word. Past it, even
 * the right code is refused (the app still decides), until the hour has passed.
 */
const WRONG_CODES: SendBudget = { prefix: 'text-code-wrong', points: 10, windowS: 60 * 60 };

/**
 * The owner texted "YES 4821" or "NO 4821": inside the transaction that stores the text. `owner`
 * is the writer the channel layer proved (identify.ts); `via` the number it came from and the line
 * it reached. A code that is not the owner's, spent, expired, unknown, or texted between other
 * numbers is no decision (handled: false): the text is a conversation message.
 */
export async function decideByText(db: Db, tx: Tx, owner: UserRow, body: string, via: { from: string; to: string }, now = new Date()): Promise<TextDecision> {
  const reply = parseApprovalReply(body);
  if (!reply) return { handled: false };
  if ((await budgetUsed(poolOf(db), WRONG_CODES, owner.id)) >= WRONG_CODES.points) {
    return { handled: true, cartId: null, outcome: 'refused', reply: 'Too many wrong codes in the last hour: nothing was decided. Decide in the app.' };
  }
  const hash = await codeHash(db, owner.id, reply.code);
  const [code] = await tx
    .select()
    .from(textApprovalCodes)
    .where(and(eq(textApprovalCodes.userId, owner.id), eq(textApprovalCodes.accountId, owner.accountId), eq(textApprovalCodes.codeHash, hash), isNull(textApprovalCodes.usedAt), gt(textApprovalCodes.expiresAt, now)))
    .limit(1)
    .for('update');
  if (!code || !(await textedBetween(tx, code, via))) {
    // Counted on its own connection: a wrong guess counts whatever becomes of this text's transaction.
    await trySendBudgets(poolOf(db), [{ budget: WRONG_CODES, key: owner.id }]);
    return { handled: false };
  }
  await tx.update(textApprovalCodes).set({ usedAt: now }).where(eq(textApprovalCodes.id, code.id));

  // The code is a decision credential for the version it was sent for, and nothing else; the
  // approvals area decides by its own rules (approvals/decide.ts), as the app's approve does.
  const actor = decisionActor(owner, code.cartId, code.contentHash);
  const refused = (why: string) => ({ handled: true as const, cartId: code.cartId, outcome: 'refused' as const, reply: `${why}: nothing was sent. Review it in the app.` });
  try {
    const outcome = await decideCart(tx, actor, code.cartId, { decision: reply.decision, contentHash: code.contentHash, reason: reply.decision === 'approve' ? 'Approved by text' : 'Rejected by text' }, now);
    if (outcome === 'rejected') return { handled: true, cartId: code.cartId, outcome: 'rejected', reply: 'Rejected: nothing will be sent.' };
    if (outcome === 'task_closed') return refused('The task was closed, so its actions were withdrawn');
    if (outcome === 'approved_early') signalAfterCommit({ kind: 'decided', cartId: code.cartId, accountId: owner.accountId });
    return { handled: true, cartId: code.cartId, outcome: 'approved', reply: 'Approved: it is being sent.' };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.status === 404) return refused('That request no longer exists');
    if (e.code === 'cart_content_changed') return refused('That request changed after the code was sent, so the code no longer approves it');
    const status = typeof e.extra.cartStatus === 'string' ? e.extra.cartStatus : null;
    return refused(status ? `That request is ${status.replace('_', ' ')}` : 'That request can no longer be decided');
  }
}

function decisionActor(owner: UserRow, cartId: string, contentHash: string): UserActor {
  return {
    accountId: owner.accountId,
    credential: { kind: 'decision', via: 'text_code', cartId, contentHash },
    level: 'user',
    organizationId: null,
    user: owner,
    actingVia: null,
    scopes: [],
    account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null },
  };
}

