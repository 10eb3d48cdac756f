import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { cartDispatches } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { conflict, notFound } from '@/server/http/errors';
import { ownCart, requirePerson } from './access';
import { IRREVERSIBLE, UNDONE } from './delivery';
import { recordAudit } from '@/server/audit/record';

/*
 * POST /portal/carts/{cartId}/dispatches/{index}/undo (spec document 4: "undoDelaySec holds an
 * irreversible dispatch after release; the undo endpoint cancels it within that window"). The
 * dispatch is marked undone only while it is held, its window has not ended and no send has
 * claimed it: the send's claim and the undo are both single conditional writes of the same row,
 * so exactly one of them happens.
 */

const RELEASED = ['approved', 'executing', 'executed', 'failed'];

export async function undoDispatch(db: Db, actor: Actor, cartId: string, index: number, now = new Date()) {
  const person = requirePerson(actor);
  return db.transaction(async (tx) => {
    // Locked: execution's begin (which starts the windows) waits for this, and this for it.
    const { cart } = await ownCart(tx, person, cartId, true);
    const [d] = await tx
      .select()
      .from(cartDispatches)
      .where(and(eq(cartDispatches.cartId, cart.id), eq(cartDispatches.index, index), isNull(cartDispatches.removedAt)));
    if (!d) throw notFound('Dispatch');
    const answer = { ok: true as const, cartId: cart.id, dispatchIndex: d.index, deliveryState: 'undone' as const };
    // Undoing twice answers the same: the person's decision holds.
    if (d.deliveryState === UNDONE) return answer;
    // Released a moment ago and not taken up by execution yet: its window has begun, though not recorded.
    const windowStarting = cart.status === 'approved' && (cart.undoDelaySec ?? 0) > 0 && IRREVERSIBLE.includes(d.type) && d.deliveryState === 'staged';
    const [undone] = await tx
      .update(cartDispatches)
      .set({ deliveryState: UNDONE })
      .where(
        and(
          eq(cartDispatches.id, d.id),
          isNull(cartDispatches.executedAt),
          windowStarting ? eq(cartDispatches.deliveryState, 'staged') : and(eq(cartDispatches.deliveryState, 'held'), gt(cartDispatches.holdUntil, now)),
        ),
      )
      .returning({ id: cartDispatches.id });
    if (undone) await recordAudit(tx, person, 'dispatch.undone', { type: 'dispatch', id: d.id }, { organizationId: person.user.organizationId, before: { cartId: cart.id, index: d.index, deliveryState: d.deliveryState }, after: { cartId: cart.id, index: d.index, deliveryState: UNDONE } });
    if (undone) return answer;
    const extra = { cartStatus: cart.status, deliveryState: d.deliveryState, undoableUntil: d.holdUntil?.toISOString() ?? null };
    if (!RELEASED.includes(cart.status)) {
      throw conflict(`The cart is ${cart.status}: nothing was released, so there is nothing to undo (cancel the cart, or remove the dispatch, instead)`, extra, 'not_undoable');
    }
    if (!IRREVERSIBLE.includes(d.type)) throw conflict(`A ${d.type} dispatch is not held for undo once released`, extra, 'not_undoable');
    throw conflict(
      d.holdUntil ? `The undo window ended at ${d.holdUntil.toISOString()}: the action is ${d.deliveryState === 'held' ? 'being sent' : d.deliveryState}` : 'The action was released with no undo window (undoDelaySec 0)',
      extra,
      'undo_window_closed',
    );
  });
}
