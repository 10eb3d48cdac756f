import type { Tx } from '@/db/client';

/**
 * Closing a task discards the carts it has not released yet (spec document 2, Approval (cart)
 * statuses: "task marked done → cart discarded"). Carts belong to the approvals area, which
 * builds on tasks (it wakes them with outcomes), so tasks cannot import it without a cycle: the
 * approvals area's discard is registered here from the entry floor (server/compose/area-hooks.ts).
 */
export type DiscardCarts = (tx: Tx, taskId: string, reason: string) => Promise<unknown>;

let discard: DiscardCarts = async () => {};

export function registerCartDiscard(fn: DiscardCarts): void {
  discard = fn;
}

export const discardPendingCarts = (tx: Tx, taskId: string, reason: string) => discard(tx, taskId, reason);
