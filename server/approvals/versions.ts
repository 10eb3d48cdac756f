import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { cartDispatches, cartDispatchVersions, carts, type CartDispatchRow, type CartRow, type DispatchContent } from '@/db/schema';
import { cartContentHash } from './cart-hash';

/*
 * Content versions (spec document 2, Versioning): a dispatch's content is never updated in
 * place. Staging writes version 1, each edit by the person the next one, and the dispatch's
 * currentVersionId moves to it; the cart's contentHash is then recomputed from what the
 * current versions show. Callers hold the cart's row lock, so versions and the hash never race.
 */

/** A dispatch as shown: the row and the content of its current version. */
export type ShownDispatchRow = { dispatch: CartDispatchRow; content: DispatchContent; versionId: string };

/** Writes the next version of a dispatch and makes it current. `byUserId` null: the assistant's own content. */
export async function addVersion(tx: Tx, dispatch: Pick<CartDispatchRow, 'id' | 'cartId' | 'accountId'>, content: DispatchContent, byUserId: string | null): Promise<CartDispatchRow> {
  const [version] = await tx
    .insert(cartDispatchVersions)
    .values({
      dispatchId: dispatch.id,
      cartId: dispatch.cartId,
      accountId: dispatch.accountId,
      seq: sql`(SELECT coalesce(max(v.seq), 0) + 1 FROM cart_dispatch_versions v WHERE v.dispatch_id = ${dispatch.id})`,
      content,
      editedByUserId: byUserId,
    })
    .returning({ id: cartDispatchVersions.id });
  const [row] = await tx
    .update(cartDispatches)
    .set({ currentVersionId: version.id, ...(byUserId ? { editedByUser: true } : {}) })
    .where(eq(cartDispatches.id, dispatch.id))
    .returning();
  return row;
}

/** The read behind shownDispatches, with the cart ids as the placeholder `cartIds` (a list may prepare it once). */
export const shownDispatchesQuery = (db: Db) =>
  db
    .select({ dispatch: cartDispatches, content: cartDispatchVersions.content, versionId: cartDispatchVersions.id })
    .from(cartDispatches)
    .innerJoin(cartDispatchVersions, eq(cartDispatchVersions.id, cartDispatches.currentVersionId))
    .where(and(sql`${cartDispatches.cartId} = ANY(${sql.placeholder('cartIds')})`, isNull(cartDispatches.removedAt)))
    .orderBy(asc(cartDispatches.cartId), asc(cartDispatches.index));

/** The dispatches each cart shows (not removed), in index order, with their current content. */
export async function shownDispatches(tx: Tx, cartIds: readonly string[]): Promise<Map<string, ShownDispatchRow[]>> {
  const out = new Map<string, ShownDispatchRow[]>(cartIds.map((id) => [id, []]));
  if (!cartIds.length) return out;
  const rows = await tx
    .select({ dispatch: cartDispatches, content: cartDispatchVersions.content, versionId: cartDispatchVersions.id })
    .from(cartDispatches)
    .innerJoin(cartDispatchVersions, eq(cartDispatchVersions.id, cartDispatches.currentVersionId))
    .where(and(inArray(cartDispatches.cartId, [...cartIds]), isNull(cartDispatches.removedAt)))
    .orderBy(asc(cartDispatches.cartId), asc(cartDispatches.index));
  for (const r of rows) out.get(r.dispatch.cartId)?.push(r);
  return out;
}

/** Recomputes the cart's contentHash from its shown dispatches and stores it (updatedAt moves with it). */
export async function refreshCartHash(tx: Tx, cartId: string): Promise<{ cart: CartRow; shown: ShownDispatchRow[] }> {
  const shown = (await shownDispatches(tx, [cartId])).get(cartId) ?? [];
  const contentHash = cartContentHash(shown.map((d) => ({ index: d.dispatch.index, content: d.content })));
  const [cart] = await tx.update(carts).set({ contentHash, updatedAt: new Date() }).where(eq(carts.id, cartId)).returning();
  return { cart, shown };
}
