import { createHash, randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { accounts, assistants, cartRejectLinks, carts, tasks, type AccountRow, type CartRejectLinkRow, type CartRow, type CartStatus } from '@/db/schema';
import { accountForHost } from '@/server/hosted/accounts';
import { siteOrigin } from '@/server/hosted/origin';
import { conflict, notFound } from '@/server/http/errors';
import { publicOrigin, requestHost } from '@/server/http/public-origin';
import { lockTaskForCart } from '@/server/tasks/cart-wake';
import { applyCartChange, planCart } from './cart-transitions';
import { presentCart } from './service';
import { settleCart } from './settle';

/*
 * The "Reject" link of an approval email (spec document 2: pending_approval → Reject link in an
 * approval message → rejected). The link carries a random token; only its SHA-256 is stored.
 * Opening the link rejects nothing (mail scanners fetch links): the page it opens shows what
 * would be rejected, and only its button, a same-origin POST, uses the token. A token works
 * once, until it expires, for the content it was mailed about, and only on the hosted app of
 * the cart's account: its hosted domain, or the public origin for an account without one. The
 * public origin selects no account by its host once several accounts share it, so there the page
 * and its button find the account from the token itself (rejectLinkSite).
 */

/** How long a reject link works. */
export const REJECT_LINK_TTL_MS = 7 * 24 * 3_600_000;

const PREFIX = 'rj_';

/** What the page and the POST accept as a token (a malformed one is simply not found). */
export const RejectToken = z.string().trim().min(1).max(200);

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A fresh token (256 random bits) and the hash that is stored for it. */
export function newRejectToken(): { token: string; tokenHash: string } {
  const token = PREFIX + randomBytes(32).toString('base64url');
  return { token, tokenHash: hashOf(token) };
}

/** Where a reject link points: the reject page of the hosted app, the token in its query. */
export const rejectUrl = (origin: string, token: string) => `${origin}/approvals/reject?token=${encodeURIComponent(token)}`;

type Found = { link: CartRejectLinkRow; cart: CartRow; taskTitle: string; assistantName: string | null };

const hashOfToken = (token: string) => (token.startsWith(PREFIX) ? hashOf(token) : null);

/** The link a token names with its cart, if it belongs to the account serving the request; `forUpdate` locks both rows. */
async function findLink(tx: Tx, accountId: string, token: string, forUpdate = false): Promise<Found | null> {
  const tokenHash = hashOfToken(token);
  if (!tokenHash) return null;
  const q = tx
    .select({ link: cartRejectLinks, cart: carts, taskTitle: tasks.title, assistantName: assistants.name })
    .from(cartRejectLinks)
    .innerJoin(carts, eq(carts.id, cartRejectLinks.cartId))
    .innerJoin(tasks, eq(tasks.id, carts.taskId))
    .leftJoin(assistants, eq(assistants.id, carts.assistantId))
    .where(and(eq(cartRejectLinks.tokenHash, tokenHash), eq(cartRejectLinks.accountId, accountId), eq(carts.accountId, accountId)))
    .limit(1);
  const [row] = forUpdate ? await q.for('update', { of: [cartRejectLinks, carts] }) : await q;
  return row ?? null;
}

export type RejectLinkSite = { account: AccountRow; origin: string; secure: boolean; selectedByHost: boolean };

/**
 * Which account's hosted app a reject page (or its button) answers for. The account the request's
 * host selects, as for every hosted page; where the host selects none, the token's own account,
 * provided the request came to the public origin and that account has no hosted domain (its
 * emails link to the public origin, which several such accounts share). Null: no account here.
 * A token of an account with a hosted domain works only there, as before.
 */
export async function rejectLinkSite(db: Db, headers: Pick<Headers, 'get'>, token: string): Promise<RejectLinkSite | null> {
  const host = requestHost(headers);
  const selected = await accountForHost(db, host);
  if (selected) {
    const { origin, secure } = siteOrigin(selected.hostedDomain);
    return { account: selected, origin, secure, selectedByHost: true };
  }
  const pub = publicOrigin();
  const tokenHash = hashOfToken(token);
  if ((host !== null && host !== pub.host) || !tokenHash) return null;
  const [row] = await db.select({ account: accounts }).from(cartRejectLinks).innerJoin(accounts, eq(accounts.id, cartRejectLinks.accountId)).where(eq(cartRejectLinks.tokenHash, tokenHash));
  if (!row || row.account.hostedDomain) return null;
  return { account: row.account, origin: pub.origin, secure: pub.secure, selectedByHost: false };
}

/** Why a link cannot reject (yet or any more), or null when it can. */
function refusal(found: Found, now: Date): { state: 'used' | 'expired' | 'resolved' | 'changed'; cartStatus: CartStatus } | null {
  const cartStatus = found.cart.status;
  if (found.link.usedAt) return { state: 'used', cartStatus };
  if (found.link.expiresAt <= now) return { state: 'expired', cartStatus };
  if (cartStatus !== 'pending_approval') return { state: 'resolved', cartStatus };
  if (found.cart.contentHash !== found.link.contentHash) return { state: 'changed', cartStatus };
  return null;
}

export type RejectLinkPreview =
  | { state: 'ready'; expiresAt: string; cart: Awaited<ReturnType<typeof presentCart>> }
  | { state: 'invalid' }
  | { state: 'used' | 'expired' | 'resolved' | 'changed'; cartStatus: CartStatus };

/**
 * What the reject page shows for a token: the cart exactly as it would be rejected, or why the
 * link cannot be used. Reading changes nothing, so a prefetch by a mail scanner is harmless.
 */
export async function previewRejectLink(db: Db, accountId: string, token: string, now = new Date()): Promise<RejectLinkPreview> {
  const found = await findLink(db, accountId, token);
  if (!found) return { state: 'invalid' };
  const refused = refusal(found, now);
  if (refused) return refused;
  return { state: 'ready', expiresAt: found.link.expiresAt.toISOString(), cart: await presentCart(db, found, found.cart) };
}

const REFUSALS = {
  used: 'This reject link was already used',
  expired: 'This reject link has expired: open your approvals to decide on the cart',
  resolved: 'The cart is no longer waiting for approval',
  changed: 'The cart changed since the email was sent: open your approvals to review it',
} as const;

const CODES = { used: 'reject_link_used', expired: 'reject_link_expired', resolved: 'cart_already_resolved', changed: 'cart_content_changed' } as const;

/**
 * The reject button: under the task's, the link's and the cart's row locks, the link is checked
 * (unused, unexpired, the cart still pending approval with the content mailed about), the cart
 * moves to `rejected` in the owner's name, the link is spent and the task wakes to hear of it,
 * all in one transaction. An unknown token is 404; any other refusal 409 naming why, and nothing
 * changes.
 */
export async function rejectByLink(db: Db, accountId: string, token: string, now = new Date()) {
  return db.transaction(async (tx) => {
    const seen = await findLink(tx, accountId, token);
    if (!seen) throw notFound('Reject link');
    // The task first, then the cart: the order mark-done and the run's end take (no deadlock).
    const task = await lockTaskForCart(tx, seen.cart.taskId);
    const found = await findLink(tx, accountId, token, true);
    if (!found) throw notFound('Reject link');
    const refused = refusal(found, now);
    if (refused) throw conflict(`${REFUSALS[refused.state]} (the cart is ${refused.cartStatus})`, { cartStatus: refused.cartStatus }, CODES[refused.state]);
    const rejected = await applyCartChange(
      tx,
      found.cart,
      planCart(found.cart, 'reject', 'rejected', { byUserId: found.link.userId, reason: 'Rejected from the approval email', now }),
      'reject',
    );
    await tx.update(cartRejectLinks).set({ usedAt: now }).where(eq(cartRejectLinks.id, found.link.id));
    // The assistant hears of it in the run this wakes.
    await settleCart(tx, task, rejected, [], now);
    return { ok: true as const, cartId: rejected.id, status: 'rejected' as const };
  });
}
