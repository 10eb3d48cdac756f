import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { creditBudgetUsage, creditBudgets, type CreditBudgetUsageRow } from '@/db/schema';
import { emitWebhookEvent } from '@/server/webhooks/emit';
import { roundCredits } from './coverage';
import { usageRow } from './usage-rows';

/**
 * After spend was added to a budget's period (its usage row locked by the caller): every alert
 * threshold it reached for the first time in this period is noted in `alerted` and sent as the
 * webhook event `budget.threshold_reached`, in the same transaction. So each threshold is
 * announced once per period, however many calls cross it together.
 */
export async function alertThresholds(tx: Tx, usage: CreditBudgetUsageRow, now = new Date()): Promise<number[]> {
  if (usage.memberUserId !== '' || usage.spent <= 0) return [];
  const [budget] = await tx.select().from(creditBudgets).where(eq(creditBudgets.id, usage.budgetId));
  if (!budget) return [];
  const limit = roundCredits(budget.limitCredits + usage.granted);
  const reached = [...new Set(budget.alertThresholds)]
    .filter((t) => !usage.alerted.includes(t) && roundCredits(usage.spent * 100) >= roundCredits(t * limit))
    .sort((a, b) => a - b);
  if (!reached.length) return [];
  await tx
    .update(creditBudgetUsage)
    .set({ alerted: [...usage.alerted, ...reached] })
    .where(usageRow(usage));
  for (const threshold of reached) {
    await emitWebhookEvent(
      tx,
      budget.accountId,
      'budget.threshold_reached',
      {
        budgetId: budget.id,
        scope: budget.scope,
        scopeId: budget.scopeId,
        period: budget.period,
        periodStart: usage.periodStart.toISOString(),
        threshold,
        spentCredits: roundCredits(usage.spent),
        limitCredits: limit,
      },
      now,
    );
  }
  return reached;
}
