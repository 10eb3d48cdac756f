import type { CreditBudgetRow, CreditBudgetUsageRow } from '@/db/schema';
import { roundCredits, type Target } from './coverage';
import { periodEnd, periodStart } from './periods';
import { figures, limitOf } from './usage-rows';

/** A budget's or a member share's figures for the period holding `now` (its usage row, if the period has one yet). */
export function periodFigures(t: Pick<Target, 'budget' | 'shareLimit' | 'memberUserId'>, row: CreditBudgetUsageRow | undefined, now: Date) {
  const f = figures(row);
  const limit = roundCredits(limitOf(t, row));
  return {
    periodStart: periodStart(t.budget.period, now).toISOString(),
    periodEnd: periodEnd(t.budget.period, now)?.toISOString() ?? null,
    limitCredits: limit,
    toppedUpCredits: t.shareLimit === null ? roundCredits(f.granted) : 0,
    spentCredits: roundCredits(f.spent),
    reservedCredits: roundCredits(f.reserved),
    remainingCredits: Math.max(0, roundCredits(limit - f.spent - f.reserved)),
    alerted: [...f.alerted].sort((a, b) => a - b),
  };
}

export const presentBudget = (b: CreditBudgetRow, row: CreditBudgetUsageRow | undefined, now: Date) => ({
  id: b.id,
  scope: b.scope,
  scopeId: b.scopeId,
  period: b.period,
  limitCredits: roundCredits(b.limitCredits),
  memberLimitCredits: b.memberLimitCredits === null ? null : roundCredits(b.memberLimitCredits),
  alertThresholds: [...b.alertThresholds].sort((x, y) => x - y),
  current: periodFigures({ budget: b, shareLimit: null, memberUserId: '' }, row, now),
  createdAt: b.createdAt.toISOString(),
  updatedAt: b.updatedAt.toISOString(),
});

export const presentCovering = (t: Target, row: CreditBudgetUsageRow | undefined, now: Date) => ({
  budgetId: t.budget.id,
  scope: t.budget.scope,
  scopeId: t.budget.scopeId,
  period: t.budget.period,
  memberShare: t.memberUserId !== '',
  ...periodFigures(t, row, now),
});
