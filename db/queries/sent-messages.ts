import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { cartDispatches, carts } from '@/db/schema';

/*
 * Which email Steward sent under a Message-ID: inbound mail names it in In-Reply-To or References.
 * It lives under db/ because the tasks area asks (a reply wakes the task) and the approvals area,
 * which sends the mail and owns carts, builds on tasks: tasks may not import approvals.
 */

/** An email dispatch Steward sent, with the task and assistant it was sent for. */
export type SentEmail = {
  messageId: string;
  dispatchId: string;
  cartId: string;
  accountId: string;
  taskId: string;
  userId: string;
  assistantId: string;
  actionType: string;
};

/** `<id@host>` with its angle brackets, the form execution records; null for anything else. */
export function normalizeMessageId(value: string): string | null {
  const inner = value.trim().replace(/^<|>$/g, '').trim();
  return inner && !/[\s<>]/.test(inner) ? `<${inner}>` : null;
}

/**
 * The email dispatches sent under any of these Message-IDs (compared with and without angle
 * brackets, so either way of recording them matches), in the order the ids were given; with
 * `accountId`, only that account's.
 */
export async function sentEmailsByMessageId(tx: Tx, messageIds: readonly string[], accountId?: string): Promise<SentEmail[]> {
  const ids = [...new Set(messageIds.map(normalizeMessageId).filter((id): id is string => id !== null))];
  if (!ids.length) return [];
  const rows = await tx
    .select({
      messageId: cartDispatches.providerMessageId,
      dispatchId: cartDispatches.id,
      cartId: carts.id,
      accountId: carts.accountId,
      taskId: carts.taskId,
      userId: carts.userId,
      assistantId: carts.assistantId,
      actionType: cartDispatches.actionType,
    })
    .from(cartDispatches)
    .innerJoin(carts, eq(carts.id, cartDispatches.cartId))
    .where(
      and(
        inArray(cartDispatches.providerMessageId, [...ids, ...ids.map((id) => id.slice(1, -1))]),
        eq(cartDispatches.accountId, carts.accountId),
        accountId === undefined ? undefined : eq(carts.accountId, accountId),
        eq(cartDispatches.type, 'email'),
      ),
    );
  const found = rows.map((r) => ({ ...r, messageId: normalizeMessageId(r.messageId ?? '') ?? '' }));
  return ids.flatMap((id) => found.filter((r) => r.messageId === id));
}
