import { and, desc, eq, isNull, or, isNotNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { assistants, cartDispatches, carts, tasks, type CartRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { badRequest } from '@/server/http/errors';
import { lockTaskForCart } from '@/server/tasks/cart-wake';
import { ownCart, requireCartReader, requirePerson, type OwnedCart } from './access';
import { decideCart } from './decide';
import { applyCartChange, planCart } from './cart-transitions';
import { MAX_CARTS_LISTED, type ApproveCartBody, type CancelCartBody, type ListCartsQuery } from './contracts';
import { toPublicCart } from './present';
import { settleCart } from './settle';
import { signalAfterCommit } from './signals';
import { shownDispatches, shownDispatchesQuery, type ShownDispatchRow } from './versions';
import { recordAudit } from '@/server/audit/record';

/*
 * The approvals API (spec document 2, Approvals): the owner's carts, and the person's decisions
 * on them. Each decision locks the cart row, so concurrent decisions and edits are serialized:
 * the first wins and the others see the status it left.
 */

/** A cart as shown, read inside the caller's transaction. */
export async function presentCart(tx: Tx, owned: Pick<OwnedCart, 'taskTitle' | 'assistantName'>, cart: CartRow) {
  const shown = (await shownDispatches(tx, [cart.id])).get(cart.id) ?? [];
  return toPublicCart(cart, owned, shown);
}

/**
 * The list's two reads as prepared statements, built once per database handle: the list is the
 * approvals page's hot path, and building and planning the queries on every request costs more
 * than running them.
 */
const prepared = new WeakMap<Db, ReturnType<typeof prepareList>>();
function prepareList(db: Db) {
  return {
    carts: db
      .select({ cart: carts, taskTitle: tasks.title, assistantName: assistants.name })
      .from(carts)
      .innerJoin(tasks, eq(tasks.id, carts.taskId))
      .leftJoin(assistants, eq(assistants.id, carts.assistantId))
      .where(and(eq(carts.userId, sql.placeholder('userId')), eq(carts.accountId, sql.placeholder('accountId')), sql`${carts.status} = ANY(${sql.placeholder('statuses')})`))
      .orderBy(desc(carts.createdAt), desc(carts.id))
      .limit(MAX_CARTS_LISTED)
      .prepare('approvals_list_carts'),
    shown: shownDispatchesQuery(db).prepare('approvals_list_dispatches'),
  };
}

/** The caller's carts waiting for them (pending_approval and/or time_boxed), newest first, at most 50. */
export async function listCarts(db: Db, actor: Actor, query: z.infer<typeof ListCartsQuery>) {
  const user = requireCartReader(actor).user;
  let q = prepared.get(db);
  if (!q) prepared.set(db, (q = prepareList(db)));
  const rows = await q.carts.execute({ userId: user.id, accountId: actor.accountId, statuses: query.status });
  const shown = new Map<string, ShownDispatchRow[]>(rows.map((r) => [r.cart.id, []]));
  if (rows.length) for (const d of await q.shown.execute({ cartIds: [...shown.keys()] })) shown.get(d.dispatch.cartId)?.push(d);
  return { ok: true as const, carts: rows.map((r) => toPublicCart(r.cart, r, shown.get(r.cart.id) ?? [])) };
}

/** One of the caller's carts, whatever its status (404 for anyone else's). */
export async function getCart(db: Db, actor: Actor, cartId: string) {
  const owned = await ownCart(db, requireCartReader(actor), cartId);
  return { ok: true as const, cart: await presentCart(db, owned, owned.cart) };
}

/**
 * Approve exactly what the person saw: the contentHash they send is compared with the cart's
 * under the cart's row lock, in the transaction that moves the status, so an edit can never
 * slip in between. A stale hash is 409 `cart_content_changed` and nothing changes. A cart whose
 * task was closed meanwhile is withdrawn (cancelled) and answered 400 `cart_task_closed`.
 */
export async function approveCart(db: Db, actor: Actor, cartId: string, input: z.infer<typeof ApproveCartBody>) {
  const outcome = await db.transaction((tx) => decideCart(tx, actor, cartId, { decision: 'approve', contentHash: input.contentHash ?? '', reason: input.reason ?? null }));
  if (outcome === 'task_closed') {
    throw badRequest('The task was closed, so its staged actions were withdrawn: nothing was approved or sent', { cartStatus: 'cancelled' }, 'cart_task_closed');
  }
  if (outcome === 'approved_early') signalAfterCommit({ kind: 'decided', cartId, accountId: actor.accountId });
  return { ok: true as const, cartId, status: 'approved' as const };
}

/** Cancel a cart waiting for the person: nothing is sent; the reason is kept for the assistant. */
export async function cancelCart(db: Db, actor: Actor, cartId: string, input: z.infer<typeof CancelCartBody>) {
  const person = requirePerson(actor);
  const wasBoxed = await db.transaction(async (tx) => {
    // The task first, then the cart: the order mark-done and the run's end take (no deadlock).
    const { cart: seen } = await ownCart(tx, person, cartId);
    const task = await lockTaskForCart(tx, seen.taskId);
    const { cart } = await ownCart(tx, person, cartId, true);
    const row = await applyCartChange(tx, cart, planCart(cart, 'cancel', 'cancelled', { byUserId: person.user.id, reason: input.reason ?? null }), 'cancel');
    await recordAudit(tx, person, 'cart.cancelled', { type: 'cart', id: cart.id }, { organizationId: person.user.organizationId, before: { status: cart.status }, after: { status: row.status, reason: input.reason ?? null } });
    // The assistant hears of it (and of the reason) in the run this wakes.
    await settleCart(tx, task, row, []);
    return cart.status === 'time_boxed';
  });
  if (wasBoxed) signalAfterCommit({ kind: 'decided', cartId, accountId: actor.accountId });
  return { ok: true as const, cartId, status: 'cancelled' as const };
}

const RESOURCE_TYPE = { email: 'email', message: 'message', calendar_event: 'calendar_event', skill_action: 'skill_action', call: 'call' } as const;

/**
 * One entry per action that ran (or was released and is held for undo), with whether it can
 * still be undone and until when. Execution fills executedAt and holdUntil; before it does,
 * the list is empty.
 */
export async function listSnapshots(db: Db, actor: Actor, cartId: string, now = new Date()) {
  const owned = await ownCart(db, requireCartReader(actor), cartId);
  const rows = await db
    .select()
    .from(cartDispatches)
    .where(and(eq(cartDispatches.cartId, owned.cart.id), isNull(cartDispatches.removedAt), or(isNotNull(cartDispatches.executedAt), isNotNull(cartDispatches.holdUntil))))
    .orderBy(cartDispatches.index);
  const snapshots = rows.map((d) => {
    const canUndo = d.deliveryState === 'held' && d.holdUntil !== null && d.holdUntil > now && d.executedAt === null;
    return {
      dispatchIndex: d.index,
      dispatchType: d.type,
      resourceType: RESOURCE_TYPE[d.type],
      versionId: d.currentVersionId ?? '',
      deliveryState: d.deliveryState,
      providerMessageId: d.providerMessageId,
      executedAt: d.executedAt?.toISOString() ?? null,
      failureReason: d.failureReason,
      canUndo,
      undoableUntil: canUndo ? d.holdUntil!.toISOString() : null,
    };
  });
  return { ok: true as const, cartId: owned.cart.id, count: snapshots.length, snapshots };
}
