import type { Tx } from '@/db/client';
import type { TaskStatus } from '@/db/schema';
import type { Actor, UserActor } from '@/server/access/actor';
import { recordAudit } from '@/server/audit/record';
import { badRequest, conflict, forbidden } from '@/server/http/errors';
import { lockTaskForCart } from '@/server/tasks/cart-wake';
import { ownCart, requirePerson } from './access';
import { applyCartChange, cartMoveAllowed, planCart, refusedCartMove } from './cart-transitions';
import { settleCart } from './settle';
import { signalInTransaction } from './signals';

/*
 * A person's decision on one version of a cart, the one place its rules live (spec document 2,
 * Approvals): the cart row locked, the move table, a closed task withdraws the cart instead, the
 * contentHash compared under the lock (an edit never slips in between), the audit event in the
 * same transaction, execution queued in it (a reject wakes the assistant instead).
 *
 * Who may decide: a person acting as themselves (a key, the hosted app), or a `decision`
 * credential, the narrow proof a channel can carry (a signed button press from the owner's linked
 * Slack or Teams identity, a code texted for that version from the owner's verified number). Such
 * a credential names one cart and one contentHash and decides nothing else: another cart, another
 * version, an edit or a cancel with it is refused (403), and every other channel credential is.
 */

const CLOSED_TASK: readonly TaskStatus[] = ['done_user_marked', 'archived', 'abandoned'];

export type Decision = { decision: 'approve' | 'reject'; contentHash: string; reason?: string | null };
export type DecisionOutcome = 'approved' | 'approved_early' | 'rejected' | 'task_closed';

const NOT_THIS_CART = 'This proof decides one version of one cart, and not this one';

/** The decider: a person, or a decision credential for exactly this cart version. */
export function requireDecider(actor: Actor, cartId: string, contentHash: string): UserActor {
  const c = actor.credential;
  if (c.kind !== 'decision') return requirePerson(actor);
  if (!actor.user || c.cartId !== cartId || c.contentHash !== contentHash) throw forbidden(NOT_THIS_CART);
  return actor as UserActor;
}

/** How the decision was proven, for the audit event: the channel proof, when there was one. */
const viaOf = (actor: Actor) => (actor.credential.kind === 'decision' ? { via: actor.credential.via } : {});

export async function decideCart(tx: Tx, actor: Actor, cartId: string, d: Decision, now = new Date()): Promise<DecisionOutcome> {
  const contentHash = d.contentHash.trim();
  // Who first (403 before any question about the body), then what.
  const person = requireDecider(actor, cartId, contentHash);
  if (!contentHash) {
    throw badRequest('contentHash: required; send the contentHash of the cart as you last read it', { fields: [{ field: 'contentHash', problem: 'is required' }] }, 'content_hash_required');
  }
  const reason = d.reason ?? null;
  if (d.decision === 'reject') {
    // The task first, then the cart: the order mark-done and the run's end take (no deadlock).
    const { cart: seen } = await ownCart(tx, person, cartId);
    const task = await lockTaskForCart(tx, seen.taskId);
    const { cart } = await ownCart(tx, person, cartId, true);
    if (!cartMoveAllowed(cart.status, 'reject', 'rejected')) throw refusedCartMove(cart.status, 'reject');
    if (contentHash !== cart.contentHash) throw changed(cart.status, 'reject');
    const row = await applyCartChange(tx, cart, planCart(cart, 'reject', 'rejected', { byUserId: person.user.id, reason, now }), 'reject');
    await recordAudit(tx, person, 'cart.rejected', { type: 'cart', id: cart.id }, {
      organizationId: person.user.organizationId,
      before: { status: cart.status },
      after: { status: 'rejected', contentHash, reason, ...viaOf(actor) },
    });
    // The assistant hears of it in the run this wakes.
    await settleCart(tx, task, row, [], now);
    return 'rejected';
  }
  const { cart, taskStatus } = await ownCart(tx, person, cartId, true);
  if (!cartMoveAllowed(cart.status, 'approve', 'approved')) throw refusedCartMove(cart.status, 'approve');
  if (CLOSED_TASK.includes(taskStatus)) {
    await applyCartChange(tx, cart, planCart(cart, 'discard', 'cancelled', { reason: `The task was closed (${taskStatus}) before approval`, now }), 'discard');
    return 'task_closed';
  }
  if (contentHash !== cart.contentHash) throw changed(cart.status, 'approve');
  await applyCartChange(tx, cart, planCart(cart, 'approve', 'approved', { byUserId: person.user.id, reason, now }), 'approve');
  await recordAudit(tx, person, 'cart.approved', { type: 'cart', id: cart.id }, {
    organizationId: person.user.organizationId,
    before: { status: cart.status },
    after: { status: 'approved', contentHash, reason, ...viaOf(actor) },
  });
  // Queued before the commit and acted on only after it (signals.ts): if queuing fails, the
  // approval rolls back with it (500 queuing_failed) and the person can simply retry.
  await signalInTransaction(tx, { kind: 'execute', cartId: cart.id, accountId: cart.accountId });
  return cart.status === 'time_boxed' ? 'approved_early' : 'approved';
}

const changed = (cartStatus: string, verb: 'approve' | 'reject') =>
  conflict(`The cart changed since you read it: read it again, check it, and ${verb} with its new contentHash`, { cartStatus }, 'cart_content_changed');
