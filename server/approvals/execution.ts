import { and, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { transactionOutcome } from '@/db/queries/transaction-outcome';
import { cartDispatches, carts, users, type CartDispatchRow, type CartRow } from '@/db/schema';
import { lockTaskForCart } from '@/server/tasks/cart-wake';
import { applyCartChange, planCart } from './cart-transitions';
import { IRREVERSIBLE, jobKey, UNDONE, type DispatchJob } from './delivery';
import { settleCart } from './settle';
import { shownDispatches } from './versions';
import { recordAudit, SYSTEM } from '@/server/audit/record';

/*
 * Executing a released cart (spec document 4, Carts and dispatch), as the durable function
 * inngest/functions/cart-execute.ts drives it: begin (approved → executing, irreversible
 * dispatches held for their undo window), then each dispatch exactly once (delivery.ts), then
 * finish (the cart's outcome, and the task woken with it).
 */

export type ExecutionPlan =
  | { go: false; reason: string }
  /** `holdUntil`: the end of the undo window, when a dispatch is held (ISO), else null. */
  | { go: true; cartId: string; holdUntil: string | null; jobs: DispatchJob[] };

export const UNDONE_ALL_REASON = 'Every action was undone within its undo window: nothing was sent';

/**
 * approved → executing, under the cart's lock: one run takes the cart; a retry of this step after
 * its commit finds it executing and carries on with the same dispatches. `transactionId` is the
 * transaction that released the cart (signals.ts): nothing happens before it commits, and nothing
 * at all if it rolled back.
 */
export async function beginExecution(db: Db, cartId: string, transactionId: string | null, now = new Date()): Promise<ExecutionPlan> {
  if (transactionId) {
    const outcome = await transactionOutcome(db, transactionId);
    if (outcome === 'aborted') return { go: false, reason: 'the release was rolled back' };
    if (outcome === 'unknown') throw new Error(`the transaction that released cart ${cartId} has not ended yet`);
  }
  return db.transaction(async (tx) => {
    const [cart] = await tx.select().from(carts).where(eq(carts.id, cartId)).for('update');
    if (!cart) return { go: false as const, reason: 'the cart no longer exists' };
    if (cart.status === 'approved') {
      await applyCartChange(tx, cart, planCart(cart, 'execute', 'executing', { now }), 'execute');
      // Released by the owner's settings (auto, or a time box that ended), not by a person: each dispatch goes out on the system's say-so.
      if (!cart.resolvedByUserId) await recordReleases(tx, cart);
      const undoMs = (cart.undoDelaySec ?? 0) * 1000;
      if (undoMs > 0) {
        await tx
          .update(cartDispatches)
          .set({ deliveryState: 'held', holdUntil: new Date(now.getTime() + undoMs) })
          .where(and(eq(cartDispatches.cartId, cart.id), isNull(cartDispatches.removedAt), inArray(cartDispatches.type, IRREVERSIBLE), eq(cartDispatches.deliveryState, 'staged')));
      }
    } else if (cart.status !== 'executing') {
      return { go: false as const, reason: `the cart is ${cart.status}` };
    }
    const shown = (await shownDispatches(tx, [cart.id])).get(cart.id) ?? [];
    const held = shown.map((d) => d.dispatch.holdUntil?.getTime() ?? 0).filter((t) => t > 0);
    return {
      go: true as const,
      cartId: cart.id,
      holdUntil: held.length ? new Date(Math.max(...held)).toISOString() : null,
      jobs: shown.map((d) => ({ dispatchId: d.dispatch.id, cartId: cart.id, index: d.dispatch.index, versionId: d.versionId, type: d.dispatch.type, key: jobKey(cart.id, d.versionId, d.dispatch.index) })),
    };
  });
}

/** One `dispatch.released` audit event per dispatch a cart released without a person's decision. */
async function recordReleases(tx: Tx, cart: CartRow) {
  const [owner] = await tx.select({ organizationId: users.organizationId, email: users.email }).from(users).where(eq(users.id, cart.userId));
  const dispatches = await tx.select().from(cartDispatches).where(and(eq(cartDispatches.cartId, cart.id), isNull(cartDispatches.removedAt)));
  for (const d of dispatches) {
    await recordAudit(tx, SYSTEM, 'dispatch.released', { type: 'dispatch', id: d.id }, { accountId: cart.accountId, organizationId: owner?.organizationId ?? null, after: { cartId: cart.id, index: d.index, type: d.type, mode: cart.resolvedApprovalMode, owner: owner?.email ?? null } });
  }
}

/** The cart's outcome from its dispatches': all undone → cancelled; any failed → failed; else executed. */
function outcomeOf(states: CartDispatchRow['deliveryState'][]): 'executed' | 'failed' | 'cancelled' {
  if (states.length && states.every((s) => s === UNDONE)) return 'cancelled';
  return states.includes('failed') ? 'failed' : 'executed';
}

/**
 * executing → executed, failed or cancelled, once every dispatch has settled, and the task told
 * (settle.ts). The task is locked before the cart, the order mark-done takes. A cart already past
 * executing (a retried step, a second run) is left as it is.
 */
export async function finishExecution(db: Db, cartId: string, now = new Date()): Promise<{ status: string }> {
  return db.transaction(async (tx) => {
    const [ref] = await tx.select({ taskId: carts.taskId }).from(carts).where(eq(carts.id, cartId));
    if (!ref) return { status: 'gone' };
    const task = await lockTaskForCart(tx, ref.taskId);
    const [cart] = await tx.select().from(carts).where(eq(carts.id, cartId)).for('update');
    if (!cart || cart.status !== 'executing') return { status: cart?.status ?? 'gone' };
    const rows = await tx
      .select({ state: cartDispatches.deliveryState })
      .from(cartDispatches)
      .where(and(eq(cartDispatches.cartId, cart.id), isNull(cartDispatches.removedAt)));
    const states = rows.map((r) => r.state);
    // Every dispatch was handled by the steps before this one; one still waiting means a step was skipped: retry.
    if (states.some((s) => s === 'staged' || s === 'held')) throw new Error(`cart ${cartId}: a dispatch has not settled yet`);
    const to = outcomeOf(states);
    // The decision stays the person's (or the system's) who released it: finishing only records the result.
    const { resolvedAt: _at, resolvedByUserId: _by, ...change } = planCart(cart, 'finish', to, { now, ...(to === 'cancelled' ? { reason: UNDONE_ALL_REASON } : {}) });
    const row = await applyCartChange(tx, cart, change, 'finish');
    await settleCart(tx, task, row, states, now);
    return { status: row.status };
  });
}

/**
 * Execution gave up (its durable function failed for good): nothing more is sent. A dispatch
 * whose send was claimed and never answered is `unknown`; one never attempted is `failed` with
 * the reason. The cart ends failed (or, not even begun, moves approved → failed) and the task
 * is told.
 */
export async function abandonExecution(db: Db, cartId: string, error: string, now = new Date()): Promise<{ status: string }> {
  const reason = `Execution stopped before this was sent: ${error.replace(/\s+/g, ' ').slice(0, 300)}`;
  return db.transaction(async (tx) => {
    const [ref] = await tx.select({ taskId: carts.taskId }).from(carts).where(eq(carts.id, cartId));
    if (!ref) return { status: 'gone' };
    const task = await lockTaskForCart(tx, ref.taskId);
    const [cart] = await tx.select().from(carts).where(eq(carts.id, cartId)).for('update');
    if (!cart || (cart.status !== 'executing' && cart.status !== 'approved')) return { status: cart?.status ?? 'gone' };
    const open = and(eq(cartDispatches.cartId, cart.id), isNull(cartDispatches.removedAt), inArray(cartDispatches.deliveryState, ['staged', 'held']));
    await tx
      .update(cartDispatches)
      .set({ deliveryState: 'unknown', failureReason: 'A send had begun when execution stopped, and its result was never recorded: it may or may not have been delivered' })
      .where(and(open, isNotNull(cartDispatches.executedAt)));
    await tx.update(cartDispatches).set({ deliveryState: 'failed', failureReason: reason }).where(and(open, isNull(cartDispatches.executedAt)));
    const states = (await tx.select({ state: cartDispatches.deliveryState }).from(cartDispatches).where(and(eq(cartDispatches.cartId, cart.id), isNull(cartDispatches.removedAt)))).map(
      (r) => r.state,
    );
    const move = cart.status === 'approved' ? 'fail' : 'finish';
    const to = cart.status === 'approved' ? 'failed' : outcomeOf(states);
    const { resolvedAt: _at, resolvedByUserId: _by, ...change } = planCart(cart, move, to, { now });
    const row = await applyCartChange(tx, cart, change, move);
    await settleCart(tx, task, row, states, now);
    return { status: row.status };
  });
}
