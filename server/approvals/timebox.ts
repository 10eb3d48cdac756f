import { and, asc, eq, lte } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { carts } from '@/db/schema';
import { lockTaskForCart } from '@/server/tasks/cart-wake';
import { applyCartChange, planCart } from './cart-transitions';
import { settleCart } from './settle';
import { signalInTransaction } from './signals';

/*
 * Time-boxed carts (spec document 2: "time_boxed → window ends → executes, or cancelled when
 * timeBoxedExpiry is cancel"). A durable timer per cart (inngest/functions/cart-timebox.ts)
 * calls expireTimeBox when the window ends; a minute sweep calls expireDueTimeBoxes for any timer
 * that was lost. Approve, cancel and the expiry all lock the cart row and move it only from
 * time_boxed, so whichever comes first is the one outcome; the others find it moved.
 */

export const TIME_BOX_CANCEL_REASON = 'The review window ended and the user’s setting for it is to cancel: nothing was sent';

export type Expiry = { outcome: 'executing' | 'cancelled' } | { outcome: 'not_due'; expiresAt: string } | { outcome: 'none'; status: string };

/** The window of one cart ended (at `now`): released for execution, or cancelled and the task woken, as its expiry says. */
export async function expireTimeBox(db: Db, cartId: string, now = new Date()): Promise<Expiry> {
  return db.transaction(async (tx) => {
    const [ref] = await tx.select({ taskId: carts.taskId }).from(carts).where(eq(carts.id, cartId));
    if (!ref) return { outcome: 'none' as const, status: 'gone' };
    const task = await lockTaskForCart(tx, ref.taskId);
    const [cart] = await tx.select().from(carts).where(eq(carts.id, cartId)).for('update');
    if (!cart || cart.status !== 'time_boxed') return { outcome: 'none' as const, status: cart?.status ?? 'gone' };
    if (cart.timeBoxedExpiresAt && cart.timeBoxedExpiresAt > now) return { outcome: 'not_due' as const, expiresAt: cart.timeBoxedExpiresAt.toISOString() };
    if (cart.timeBoxedExpiry === 'cancel') {
      const row = await applyCartChange(tx, cart, planCart(cart, 'expire', 'cancelled', { now, reason: TIME_BOX_CANCEL_REASON }), 'expire');
      await settleCart(tx, task, row, [], now);
      return { outcome: 'cancelled' as const };
    }
    await applyCartChange(tx, cart, planCart(cart, 'expire', 'approved', { now }), 'expire');
    await signalInTransaction(tx, { kind: 'execute', cartId: cart.id, accountId: cart.accountId });
    return { outcome: 'executing' as const };
  });
}

/** How long a released cart may wait for its execution to start before the sweep sends it again. */
const STALLED_MS = 2 * 60_000;
const BATCH = 100;

export type SweepResult = { expired: number; restarted: number; failed: string[] };

/**
 * Every time box that has ended, and every released cart whose execution never started (its
 * signal lost with a crashed process): the safety net under the per-cart timers. Each cart in its
 * own transaction; one that fails is named and the others go on.
 */
export async function expireDueTimeBoxes(db: Db, now = new Date()): Promise<SweepResult> {
  const result: SweepResult = { expired: 0, restarted: 0, failed: [] };
  const due = await db
    .select({ id: carts.id })
    .from(carts)
    .where(and(eq(carts.status, 'time_boxed'), lte(carts.timeBoxedExpiresAt, now)))
    .orderBy(asc(carts.timeBoxedExpiresAt))
    .limit(BATCH);
  for (const { id } of due) {
    try {
      const r = await expireTimeBox(db, id, now);
      if (r.outcome === 'executing' || r.outcome === 'cancelled') result.expired++;
    } catch (e) {
      console.error(`carts: the time box of cart ${id} could not end:`, e);
      result.failed.push(id);
    }
  }
  const stalled = await db
    .select({ id: carts.id })
    .from(carts)
    .where(and(eq(carts.status, 'approved'), lte(carts.updatedAt, new Date(now.getTime() - STALLED_MS))))
    .limit(BATCH);
  for (const { id } of stalled) {
    try {
      const sent = await db.transaction(async (tx) => {
        const [cart] = await tx.select().from(carts).where(and(eq(carts.id, id), eq(carts.status, 'approved'))).for('update', { skipLocked: true });
        if (!cart) return false;
        // Execution takes the cart only from approved, so a start that did arrive meanwhile makes this one a no-op.
        // updatedAt moves so the next sweep waits its turn again instead of sending every minute.
        await tx.update(carts).set({ updatedAt: now }).where(eq(carts.id, cart.id));
        await signalInTransaction(tx, { kind: 'execute', cartId: cart.id, accountId: cart.accountId });
        return true;
      });
      if (sent) result.restarted++;
    } catch (e) {
      console.error(`carts: the execution of cart ${id} could not be started again:`, e);
      result.failed.push(id);
    }
  }
  return result;
}
