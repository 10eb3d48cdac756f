import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { mailboxes } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { logger } from '@/server/logger';
import { presentMailbox } from './present';
import { retireMailbox } from './retire';
import { clearFromAssistants, mailboxOfUser } from './store';

/*
 * The user's connected mailbox as a resource: one per user, reached only by that user (their own
 * key, or an account key acting as them). It shows the provider, address, status and last poll,
 * never a token.
 */

export async function mailboxStatus(db: Db, actor: UserActor) {
  const row = await mailboxOfUser(db, actor.user.id);
  return { ok: true as const, mailbox: row ? presentMailbox(row) : null };
}

/** Disconnects: the provider is told (best effort), the sealed tokens are deleted with the row, and the user's assistants no longer show a mailbox. */
export async function disconnectMailbox(db: Db, actor: UserActor) {
  const row = await mailboxOfUser(db, actor.user.id);
  if (!row) return { ok: true as const, disconnected: false };
  await retireMailbox(db, row, { revoke: true });
  await db.transaction(async (tx) => {
    await tx.delete(mailboxes).where(eq(mailboxes.id, row.id));
    await clearFromAssistants(tx, actor.user.id);
  });
  logger.info({ mailboxId: row.id, userId: actor.user.id }, 'mailbox disconnected');
  return { ok: true as const, disconnected: true };
}
