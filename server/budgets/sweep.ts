import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { creditBlockedTasks, creditReservations, tasks } from '@/db/schema';
import { releaseCall } from './reserve';
import { resumeAllBlocked } from './resume';

/*
 * The budgets' sweep (inngest/functions/budget-sweep.ts, every minute): reservations a crashed
 * process left `held` are released (a model call that is still going after this long settles what
 * it spent anyway: reserve.ts), notes of tasks that left credits_blocked some other way go, and
 * blocked tasks whose budgets have room again (a new day, week or month) resume.
 */

/** How long a reservation may stay held: longer than any model call (a step's call is retried well before). */
export function reservationTtlMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.STEWARD_CREDIT_RESERVATION_TTL_MS);
  return Number.isInteger(n) && n > 0 ? n : 15 * 60_000;
}

const BATCH = 500;

export async function sweepBudgets(db: Db, now = new Date()) {
  const stale = await db
    .select({ ref: creditReservations.ref })
    .from(creditReservations)
    .where(and(eq(creditReservations.status, 'held'), lt(creditReservations.createdAt, new Date(now.getTime() - reservationTtlMs()))))
    .orderBy(creditReservations.createdAt)
    .limit(BATCH);
  for (const { ref } of stale) await db.transaction((tx) => releaseCall(tx, ref, now));
  const gone = await db.execute(
    sql`DELETE FROM ${creditBlockedTasks} b USING ${tasks} t WHERE t.id = b.task_id AND t.status <> 'credits_blocked'`,
  );
  const { resumed } = await resumeAllBlocked(db, now);
  return { released: stale.length, forgotten: gone.rowCount ?? 0, resumed };
}
