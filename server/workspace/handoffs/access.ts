import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { handoffs, type HandoffRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';

/*
 * Who reaches a handoff: only the user it belongs to, acting as that user. The spec's 403 "not
 * this user's handoff" is given to a caller that is not acting as any user (account key without
 * X-User-Email, certificate token); another user's handoff is 404 like every resource of
 * another user, so ids never reveal that someone else has one. Closing, deferring and declining
 * need a person: an assistant's run never answers its own handoff.
 */

/** The user a handoff call acts for. */
export type HandoffOwner = { accountId: string; userId: string };

const NOT_A_USER = 'Handoffs act as a user: use a user key, or an account key with X-User-Email';
const NOT_A_PERSON = 'Answering a handoff needs a person: use a user key, an account key with X-User-Email, or the session link';

export function requireHandoffUser(actor: Actor): HandoffOwner {
  if (!actor.user || actor.credential.kind === 'certificate') throw forbidden(NOT_A_USER);
  return { accountId: actor.accountId, userId: actor.user.id };
}

export function requireHandoffPerson(actor: Actor): HandoffOwner {
  const owner = requireHandoffUser(actor);
  if (actor.credential.kind !== 'api_key' && actor.credential.kind !== 'portal_session') throw forbidden(NOT_A_PERSON);
  return owner;
}

/** The owner's handoff, locked for the rest of the transaction when `forUpdate`; 404 otherwise. */
export async function ownHandoff(tx: Tx, owner: HandoffOwner, handoffId: string, forUpdate = false): Promise<HandoffRow> {
  const q = tx
    .select()
    .from(handoffs)
    .where(and(eq(handoffs.id, handoffId), eq(handoffs.accountId, owner.accountId), eq(handoffs.userId, owner.userId)));
  const [row] = forUpdate ? await q.for('update') : await q;
  if (!row) throw notFound('Handoff');
  return row;
}
