import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { carts } from '@/db/schema';
import { applyCartChange, cartMoveAllowed, planCart } from './cart-transitions';

/**
 * "Any → task marked done → cart discarded" (spec document 2, Approval (cart) statuses): every
 * cart of the task not released yet (open, submitted, pending approval, time-boxed) is
 * cancelled with `reason`; a released one (approved, executing) is left to finish. Run inside
 * the transaction that closes the task; returns the ids of the carts discarded.
 */
export async function discardTaskCarts(tx: Tx, taskId: string, reason: string, now = new Date()): Promise<string[]> {
  const open = await tx
    .select()
    .from(carts)
    .where(and(eq(carts.taskId, taskId), inArray(carts.status, ['open', 'submitted', 'pending_approval', 'time_boxed'])))
    .orderBy(carts.id)
    .for('update');
  const discarded: string[] = [];
  for (const cart of open) {
    if (!cartMoveAllowed(cart.status, 'discard', 'cancelled')) continue;
    await applyCartChange(tx, cart, planCart(cart, 'discard', 'cancelled', { reason, now }), 'discard');
    discarded.push(cart.id);
  }
  return discarded;
}
