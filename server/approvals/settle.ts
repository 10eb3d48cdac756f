import type { Tx } from '@/db/client';
import type { CartRow, TaskRow } from '@/db/schema';
import { wakeTaskForCart } from '@/server/tasks/cart-wake';

/*
 * A cart reached its outcome: the task hears of it (spec document 2: "approving, cancelling or
 * executing a cart wakes its task with the outcome"). What the next run is told is read from the
 * carts themselves (outcomes.ts), so a task that is running or already woken loses nothing.
 *
 * One outcome does not wake the task: a cart the user's settings released at once (auto) whose
 * every action was accepted. The run that staged it ended expecting exactly that, and waking it
 * would make it repeat its own ending (a task waiting on a reply would have to wait again). The
 * next run is still told. Every other outcome (a person's decision, a review window that ended,
 * anything not delivered) wakes it.
 */

/** Whether the outcome is news to the task's assistant. */
export function wakesTask(cart: Pick<CartRow, 'status' | 'resolvedApprovalMode' | 'resolvedByUserId'>, states: readonly string[]): boolean {
  const releasedAsExpected = cart.status === 'executed' && cart.resolvedApprovalMode === 'auto' && !cart.resolvedByUserId && states.every((s) => s === 'provider_accepted');
  return !releasedAsExpected;
}

/** Call in the transaction that moved the cart to its outcome, with the task locked first (lockTaskForCart). */
export async function settleCart(tx: Tx, task: TaskRow | null, cart: CartRow, states: readonly string[], now = new Date()): Promise<boolean> {
  if (!task || !wakesTask(cart, states)) return false;
  return wakeTaskForCart(tx, task, now);
}
