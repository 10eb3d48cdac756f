import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { carts, type CartRow, type CartStatus } from '@/db/schema';
import { AppError, badRequest, conflict } from '@/server/http/errors';
import { emitWebhookEvent } from '@/server/webhooks/emit';

/*
 * The one place cart statuses change (spec document 2, "Approval (cart) statuses"). Services
 * ask `planCart(cart, move, to)` for the columns to write and `applyCartChange` writes them only
 * if the cart is still in the status planned from; nothing else sets `status`. Moves of open,
 * submitted, approved and executing carts are "not shown" by the spec: they are the runtime's
 * and are listed here so execution plugs in without a second table.
 */

/** Waiting for the person: the only statuses in which a cart can be approved, cancelled or edited. */
export const AWAITING: readonly CartStatus[] = ['pending_approval', 'time_boxed'];

/** Done for good: approving or cancelling one is `cart_already_resolved`. */
export const RESOLVED: readonly CartStatus[] = ['approved', 'executing', 'executed', 'cancelled', 'rejected', 'failed'];

/** Not handed to the person yet: still collecting, or having its mode decided. */
const UNSUBMITTED: readonly CartStatus[] = ['open', 'submitted'];

const MOVES = {
  /** The run ended: the cart is handed over and its mode is being decided. */
  submit: { from: ['open'], to: ['submitted'] },
  /** The strictest mode over the dispatches: auto → approved, time-boxed → time_boxed, manual → pending_approval. */
  resolve: { from: ['submitted'], to: ['approved', 'time_boxed', 'pending_approval'] },
  /** POST approve with the current contentHash (approving a time box early releases it at once). */
  approve: { from: AWAITING, to: ['approved'] },
  /** POST cancel. */
  cancel: { from: AWAITING, to: ['cancelled'] },
  /** The reject link of an approval message. */
  reject: { from: ['pending_approval'], to: ['rejected'] },
  /** The time box ends: it executes (approved, queued) or is cancelled, as timeBoxedExpiry says. */
  expire: { from: ['time_boxed'], to: ['approved', 'cancelled'] },
  /** The task was marked done (or closed): whatever was not released is discarded. */
  discard: { from: [...UNSUBMITTED, ...AWAITING], to: ['cancelled'] },
  /** Execution picks up an approved cart. */
  execute: { from: ['approved'], to: ['executing'] },
  /** Every dispatch ended: executed (none failed), failed (at least one could not be sent), or cancelled (the person undid every one within its window). */
  finish: { from: ['executing'], to: ['executed', 'failed', 'cancelled'] },
  /** Execution could not even start (queuing failed for good). */
  fail: { from: ['approved'], to: ['failed'] },
} as const satisfies Record<string, { from: readonly CartStatus[]; to: readonly CartStatus[] }>;

export type CartMove = keyof typeof MOVES;

/** Whether `move` may take a cart from `from` to `to`. */
export function cartMoveAllowed(from: CartStatus, move: CartMove, to: CartStatus): boolean {
  const m = MOVES[move] as { from: readonly CartStatus[]; to: readonly CartStatus[] };
  return m.from.includes(from) && m.to.includes(to);
}

const PAST = { approve: 'approved', cancel: 'cancelled', reject: 'rejected' } as const;

/**
 * Why a move is refused, in the spec's words: a person's move on a resolved cart is 400
 * `cart_already_resolved`; on a cart not handed over yet (or any other refusal) 409
 * `invalid_transition` naming the status.
 */
export function refusedCartMove(from: CartStatus, move: CartMove): AppError {
  if ((move === 'approve' || move === 'cancel' || move === 'reject') && RESOLVED.includes(from)) {
    return badRequest(`The cart is already ${from}: it cannot be ${PAST[move]}`, { cartStatus: from }, 'cart_already_resolved');
  }
  return conflict(`The cart is ${from}: ${move} is not possible from that status`, { cartStatus: from }, 'invalid_transition');
}

/** The edit rule: only while the cart waits for the person (409 `cart_not_editable` otherwise). */
export function requireEditable(cart: Pick<CartRow, 'status'>): void {
  if (!AWAITING.includes(cart.status)) {
    throw conflict(`The cart is ${cart.status}: only a cart pending approval or time-boxed can be changed`, { cartStatus: cart.status }, 'cart_not_editable');
  }
}

/** The cart statuses the account's webhook endpoints hear of (spec 4, Outbound events). */
const CART_EVENTS: Partial<Record<CartStatus, 'cart.pending_approval' | 'cart.executed' | 'cart.failed'>> = {
  pending_approval: 'cart.pending_approval',
  executed: 'cart.executed',
  failed: 'cart.failed',
};

/** The columns a move writes. */
export type CartChange = Pick<Partial<CartRow>, 'status' | 'resolvedAt' | 'resolvedByUserId' | 'reason'>;

const ENDS_FOR_PERSON: readonly CartStatus[] = ['approved', 'cancelled', 'rejected'];

/** Plans one move; throws the refusal when the move is not allowed from the cart's status. */
export function planCart(cart: Pick<CartRow, 'status'>, move: CartMove, to: CartStatus, opts: { byUserId?: string | null; reason?: string | null; now?: Date } = {}): CartChange {
  if (!cartMoveAllowed(cart.status, move, to)) throw refusedCartMove(cart.status, move);
  const change: CartChange = { status: to };
  // The moment the person's decision (or the system's in their place) was taken.
  if (ENDS_FOR_PERSON.includes(to) && move !== 'resolve') {
    change.resolvedAt = opts.now ?? new Date();
    change.resolvedByUserId = opts.byUserId ?? null;
  }
  if (opts.reason !== undefined) change.reason = opts.reason;
  return change;
}

/**
 * Writes a planned change only if the cart is still in the status it was planned from: a
 * concurrent move makes this one the refusal the cart's status now calls for.
 */
export async function applyCartChange(tx: Tx, cart: CartRow, change: CartChange & Partial<CartRow>, move: CartMove): Promise<CartRow> {
  const [row] = await tx
    .update(carts)
    .set(change)
    .where(and(eq(carts.id, cart.id), eq(carts.status, cart.status)))
    .returning();
  if (row) {
    const event = row.status !== cart.status ? CART_EVENTS[row.status] : undefined;
    // In the moving transaction: the account's endpoints hear of it exactly when it commits.
    if (event) {
      await emitWebhookEvent(tx, row.accountId, event, { cartId: row.id, taskId: row.taskId, userId: row.userId, status: row.status, contentHash: row.contentHash, reason: row.reason ?? null });
    }
    return row;
  }
  const [now] = await tx.select({ status: carts.status }).from(carts).where(eq(carts.id, cart.id));
  throw refusedCartMove(now?.status ?? cart.status, move);
}
