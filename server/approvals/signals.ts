import { sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';

/*
 * What carts ask of the durable engine: execute a released cart, run a time box's timer, tell
 * the person a cart waits for them, stop a timer once the person decided. This area cannot import the engine (it sits on the entry floor),
 * so server/compose/engine-handovers.ts registers the sender. Without one (API tests without an executor), a cart
 * only stays in its status, as a task run stays queued without a dispatcher.
 *
 * `execute`, `time_box` and `pending_approval` are sent from inside the transaction that released the cart, carrying
 * its id (pg_current_xact_id): the durable function acts only once that transaction has
 * committed (and never after a rollback), and a send that fails fails the transaction, so a
 * release is never committed without its execution queued (approve answers 500 and changes
 * nothing, as the spec asks).
 */

export type CartSignal =
  | { kind: 'execute'; cartId: string; accountId: string; transactionId: string }
  | { kind: 'time_box'; cartId: string; accountId: string; expiresAt: string; transactionId: string }
  /** The cart waits for the person: they are told (the approval email, notify.ts). */
  | { kind: 'pending_approval'; cartId: string; accountId: string; transactionId: string }
  /** The person decided (approve, cancel): a time box's timer has nothing left to do. */
  | { kind: 'decided'; cartId: string; accountId: string };

type Sender = (signal: CartSignal) => Promise<void>;

let sender: Sender | null = null;

/** Called once at start-up by the entry floor (server/compose/engine-handovers.ts); null unregisters. Returns the sender it replaces. */
export function registerCartSignals(fn: Sender | null): Sender | null {
  const previous = sender;
  sender = fn;
  return previous;
}

type Releasing =
  | { kind: 'execute' | 'pending_approval'; cartId: string; accountId: string }
  | { kind: 'time_box'; cartId: string; accountId: string; expiresAt: string };

/** Sends a release signal tied to the caller's transaction; a failed send throws (500 `queuing_failed`) and the transaction rolls back. */
export async function signalInTransaction(tx: Tx, signal: Releasing): Promise<void> {
  if (!sender) return;
  const { rows } = await tx.execute<{ xid: string }>(sql`SELECT pg_current_xact_id()::text AS xid`);
  try {
    await sender({ ...signal, transactionId: rows[0].xid });
  } catch (err) {
    logger.error({ err, cartId: signal.cartId }, 'cart: the release could not be queued');
    throw new AppError(500, 'queuing_failed', 'The cart could not be queued for execution: nothing was changed; retry', { cartId: signal.cartId });
  }
}

/** Sends a signal whose loss harms nothing (the timer re-checks the cart under its lock anyway); call it after the commit. */
export function signalAfterCommit(signal: Extract<CartSignal, { kind: 'decided' }>): void {
  sender?.(signal).catch((err: unknown) => logger.warn({ err, cartId: signal.cartId }, 'cart: a stop signal could not be sent'));
}
