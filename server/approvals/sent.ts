import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, carts, tasks, type CartStatus } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireCartReader } from './access';
import { toPublicCart } from './present';
import { shownDispatches } from './versions';

/** Carts whose actions were released: on their way, sent, or failed to send. */
export const SENT_STATUSES = ['approved', 'executing', 'executed', 'failed'] as const satisfies readonly CartStatus[];

/**
 * The caller's released carts, newest first (by when they last moved), in GET /portal/carts'
 * shape: the hosted app's "Sent" page, which reads each one's snapshots (what ran, what can
 * still be undone) through listSnapshots. The API lists only carts awaiting a decision.
 */
export async function listSentCarts(db: Db, actor: Actor, limit: number) {
  const user = requireCartReader(actor).user;
  const rows = await db
    .select({ cart: carts, taskTitle: tasks.title, assistantName: assistants.name })
    .from(carts)
    .innerJoin(tasks, eq(tasks.id, carts.taskId))
    .leftJoin(assistants, eq(assistants.id, carts.assistantId))
    .where(and(eq(carts.userId, user.id), eq(carts.accountId, actor.accountId), inArray(carts.status, [...SENT_STATUSES])))
    .orderBy(desc(carts.updatedAt), desc(carts.id))
    .limit(limit);
  const shown = await shownDispatches(db, rows.map((r) => r.cart.id));
  return { ok: true as const, carts: rows.map((r) => toPublicCart(r.cart, r, shown.get(r.cart.id) ?? [])) };
}

/** How many carts wait for the caller (pending approval or time-boxed): the count beside "Approvals". */
export async function countWaitingCarts(db: Db, actor: Actor): Promise<number> {
  const user = requireCartReader(actor).user;
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(carts)
    .where(and(eq(carts.userId, user.id), eq(carts.accountId, actor.accountId), inArray(carts.status, ['pending_approval', 'time_boxed'])));
  return Number(n);
}
