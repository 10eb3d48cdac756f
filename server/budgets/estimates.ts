import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { creditEstimates } from '@/db/schema';
import type { ModelTier } from '@/server/agent/models/tiers';

/*
 * What a model call is expected to cost before it is made: the largest charged cost seen for the
 * account and tier. Reservations take this much, so calls that fit under a budget together cannot
 * overshoot it (as long as no call costs more than any before it). Before the first call of a tier
 * is seen, STEWARD_CREDIT_CALL_ESTIMATE (credits) stands in; unset, the cost is unknown and the
 * call runs alone against each budget (reserve.ts), after which its cost is known.
 */

/** The configured stand-in, or null (unknown). */
export function configuredEstimate(env: Record<string, string | undefined> = process.env): number | null {
  const raw = env.STEWARD_CREDIT_CALL_ESTIMATE?.trim();
  if (!raw) return null;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

export async function callEstimate(tx: Tx, accountId: string, tier: ModelTier): Promise<number | null> {
  const [row] = await tx
    .select({ credits: creditEstimates.credits })
    .from(creditEstimates)
    .where(and(eq(creditEstimates.accountId, accountId), eq(creditEstimates.modelTier, tier)));
  return row?.credits ?? configuredEstimate();
}

/** After a call is settled: the estimate only ever grows. Written only when it does, so settling stays free of a shared hot row. */
export async function noteCallCost(tx: Tx, accountId: string, tier: ModelTier, credits: number): Promise<void> {
  const [row] = await tx
    .select({ credits: creditEstimates.credits })
    .from(creditEstimates)
    .where(and(eq(creditEstimates.accountId, accountId), eq(creditEstimates.modelTier, tier)));
  if (row && row.credits >= credits) return;
  await tx
    .insert(creditEstimates)
    .values({ accountId, modelTier: tier, credits })
    .onConflictDoUpdate({
      target: [creditEstimates.accountId, creditEstimates.modelTier],
      set: { credits: sql`greatest(${creditEstimates.credits}, excluded.credits)`, updatedAt: new Date() },
    });
}
