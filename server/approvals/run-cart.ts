import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { carts, tasks } from '@/db/schema';
import { timeBoxNotice } from '@/server/notices/events';
import { applyCartChange, planCart } from './cart-transitions';
import { signalInTransaction } from './signals';
import { submitCart, type SubmitOutcome } from './staging';

/*
 * What happens to a run's open cart when the run ends (server/agent/runtime/end-run.ts calls
 * these inside its end step's transaction): a run that ended normally submits it, and what the
 * mode asks for is queued with the same transaction (signals.ts); a run that failed or was
 * stopped releases nothing it staged.
 */

async function openCartOf(tx: Tx, runId: string) {
  const [cart] = await tx
    .select()
    .from(carts)
    .where(and(eq(carts.runId, runId), eq(carts.status, 'open')))
    .for('update');
  return cart ?? null;
}

/** Submits the run's open cart, if it staged anything, and queues its execution or its time box. Null: the run staged nothing. */
export async function submitRunCart(tx: Tx, runId: string, now = new Date()): Promise<SubmitOutcome | null> {
  const cart = await openCartOf(tx, runId);
  if (!cart) return null;
  const outcome = await submitCart(tx, cart.id, now);
  if (outcome.next === 'execute') await signalInTransaction(tx, { kind: 'execute', cartId: cart.id, accountId: cart.accountId });
  else if (outcome.next === 'start_timer') {
    await signalInTransaction(tx, { kind: 'time_box', cartId: cart.id, accountId: cart.accountId, expiresAt: outcome.expiresAt.toISOString() });
    // The user is told before it goes out, whatever the hour (their review window is running).
    const [task] = await tx.select({ title: tasks.title }).from(tasks).where(eq(tasks.id, cart.taskId));
    await timeBoxNotice(tx, cart, task?.title ?? 'a task', outcome.expiresAt);
  } else if (outcome.next === 'wait') await signalInTransaction(tx, { kind: 'pending_approval', cartId: cart.id, accountId: cart.accountId });
  return outcome;
}

/** The run did not end normally: its open cart is cancelled with `reason` and nothing in it is sent. */
export async function discardRunCart(tx: Tx, runId: string, reason: string, now = new Date()): Promise<string | null> {
  const cart = await openCartOf(tx, runId);
  if (!cart) return null;
  await applyCartChange(tx, cart, planCart(cart, 'discard', 'cancelled', { reason, now }), 'discard');
  return cart.id;
}
