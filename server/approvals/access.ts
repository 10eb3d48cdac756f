import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { assistants, carts, tasks, type CartRow, type TaskStatus } from '@/db/schema';
import type { Actor, UserActor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';

/*
 * Who reaches a cart (spec document 2, Approvals and Authentication): only its owner, acting
 * as a user. Every approvals call refuses a caller that is not acting as a user with 403
 * (certificate tokens, which act account-wide, and account keys without X-User-Email); the
 * decisions (approve, cancel, edits) need a person, so a task run acting for its owner is
 * refused too: an assistant never approves its own cart. Another user's cart is 404.
 */

const NOT_A_USER = 'Approvals act as a user: use a user key, or an account key with X-User-Email';
const NOT_A_PERSON = 'Approving, cancelling and editing a cart needs a person: use a user key, an account key with X-User-Email, or the hosted app';

/** Reads: a caller acting as a user (403 otherwise). */
export function requireCartReader(actor: Actor): UserActor {
  if (!actor.user || actor.credential.kind === 'certificate') throw forbidden(NOT_A_USER);
  return actor as UserActor;
}

/** Decisions and edits: a person acting as themselves, through a key or the hosted app (403 otherwise). */
export function requirePerson(actor: Actor): UserActor {
  const reader = requireCartReader(actor);
  if (reader.credential.kind !== 'api_key' && reader.credential.kind !== 'portal_session') throw forbidden(NOT_A_PERSON);
  return reader;
}

export type OwnedCart = { cart: CartRow; taskTitle: string; taskStatus: TaskStatus; assistantName: string | null };

/** The caller's own cart with what it is shown with; `forUpdate` locks the cart row for the rest of the transaction. */
export async function ownCart(tx: Tx, actor: UserActor, cartId: string, forUpdate = false): Promise<OwnedCart> {
  const q = tx
    .select({ cart: carts, taskTitle: tasks.title, taskStatus: tasks.status, assistantName: assistants.name })
    .from(carts)
    .innerJoin(tasks, eq(tasks.id, carts.taskId))
    .leftJoin(assistants, eq(assistants.id, carts.assistantId))
    .where(and(eq(carts.id, cartId), eq(carts.accountId, actor.accountId), eq(carts.userId, actor.user.id)))
    .limit(1);
  const [row] = forUpdate ? await q.for('update', { of: carts }) : await q;
  if (!row) throw notFound('Cart');
  return row;
}
