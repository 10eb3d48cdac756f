import { and, asc, eq, isNull, lte } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { handoffs } from '@/db/schema';
import { logger } from '@/server/logger';
import { closeHandoff } from './close';

const BATCH = 200;

/**
 * Closes every open handoff whose expiresAt has come (spec: "unanswered handoffs expire at
 * expiresAt"): control returns to the assistant and the waiting task wakes with the outcome.
 * Each handoff in its own transaction, skipping rows another pass or a person's call holds, so
 * overlapping passes and a concurrent answer never both act.
 */
export async function expireDueHandoffs(db: Db, now = new Date()): Promise<{ expired: string[]; failed: string[] }> {
  const expired: string[] = [];
  const failed: string[] = [];
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(handoffs)
        .where(and(isNull(handoffs.closedAt), lte(handoffs.expiresAt, now)))
        .orderBy(asc(handoffs.expiresAt))
        .limit(1)
        .for('update', { skipLocked: true });
      if (!due.length) return null;
      try {
        await tx.transaction((sp) => closeHandoff(sp, due[0], { status: 'expired', reason: 'expired' }, now));
        expired.push(due[0].id);
      } catch (err) {
        // A handoff that cannot be closed (its task in a state that refuses the wake) is closed without waking it.
        logger.error({ err, handoffId: due[0].id }, 'handoff: expiry failed');
        failed.push(due[0].id);
        await tx.update(handoffs).set({ status: 'expired', closeReason: 'expired', closedAt: now }).where(eq(handoffs.id, due[0].id));
      }
      return due[0].id;
    });
    if (!batch || expired.length + failed.length >= BATCH) break;
  }
  return { expired, failed };
}
