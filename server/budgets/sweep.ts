import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chatModelCalls, creditBlockedTasks, creditReservations, taskModelCalls, tasks } from '@/db/schema';
import type { ModelTier } from '@/server/models/tiers';
import { releaseCall, settleCall } from './reserve';
import { resumeAllBlocked } from './resume';

/*
 * The budgets' sweep (inngest/functions/budget-sweep.ts, every minute):
 * - a reservation still held a minute after its call recorded its usage row is settled from that
 *   row (the process that made the call settles it right after the row, settle-later.ts; a crash
 *   or a failed statement in between leaves it to the sweep);
 * - reservations a crashed process left `held` with no call recorded are released (a model call
 *   that is still going after this long settles what it spent anyway: reserve.ts);
 * - notes of tasks that left credits_blocked some other way go, and blocked tasks whose budgets
 *   have room again (a new day, week or month) resume.
 */

/** How long a reservation may stay held: longer than any model call (a step's call is retried well before). */
export function reservationTtlMs(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.STEWARD_CREDIT_RESERVATION_TTL_MS);
  return Number.isInteger(n) && n > 0 ? n : 15 * 60_000;
}

/** How long a recorded call's own process has to settle it before the sweep does. */
export const SETTLE_GRACE_MS = 60_000;

const BATCH = 500;

export async function sweepBudgets(db: Db, now = new Date()) {
  const settled = await settleRecorded(db, now);
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
  return { settled, released: stale.length, forgotten: gone.rowCount ?? 0, resumed };
}

/**
 * Held reservations whose model call has its usage row, settled at the row's credits. The
 * reservation names its call (reserve.ts): `run:<runId>:<seq>` a task run's, `turn:<turnId>:<n>`
 * a chat turn's n-th (seq n − 1); both usage tables are looked up by their (owner, seq) key.
 */
async function settleRecorded(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - SETTLE_GRACE_MS);
  const part = (n: number) => sql`split_part(${creditReservations.ref}, ':', ${sql.raw(String(n))})`;
  const { rows } = await db.execute<{ ref: string; tier: ModelTier; credits: string | number }>(sql`
    SELECT ${creditReservations.ref} AS ref, u.model_tier AS tier, u.charged_credits AS credits
    FROM ${creditReservations} CROSS JOIN LATERAL (
      SELECT m.model_tier, m.charged_credits FROM ${taskModelCalls} m
        WHERE ${part(1)} = 'run' AND m.run_id = ${part(2)} AND m.seq::text = ${part(3)}
      UNION ALL
      SELECT m.model_tier, m.charged_credits FROM ${chatModelCalls} m
        WHERE ${part(1)} = 'turn' AND m.turn_id = ${part(2)} AND (m.seq + 1)::text = ${part(3)}
      LIMIT 1
    ) u
    WHERE ${creditReservations.status} = 'held' AND ${creditReservations.createdAt} < ${cutoff.toISOString()}::timestamptz
    ORDER BY ${creditReservations.createdAt} LIMIT ${BATCH}`);
  for (const r of rows) await db.transaction((tx) => settleCall(tx, r.ref, r.tier, Number(r.credits), now));
  return rows.length;
}
