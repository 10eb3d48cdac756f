import { periodEnd } from './periods';
import type { SpentBudget } from './reserve';

const PERIOD_WORD = { day: 'today', week: 'this week', month: 'this month', none: 'in total' } as const;

/** How a spent budget is named to the user: which budget, what it allowed, how to get credits back. */
export function spentBudgetMessage(b: SpentBudget, now = new Date()): string {
  const which = b.memberUserId ? `your share of the team budget ${b.budgetId}` : `the ${b.scope} budget ${b.budgetId}`;
  const next = periodEnd(b.period, now);
  return (
    `I stopped: ${which} has no credits left (${b.spentCredits} of ${b.limitCredits} credits spent ${PERIOD_WORD[b.period]}). ` +
    `An administrator can top it up (POST /api/budgets/${b.budgetId}/top-up, or \`npm run admin -- top-up --budget ${b.budgetId} --credits N\`) ` +
    `or raise its limit (PATCH /api/budgets/${b.budgetId}); ` +
    (next ? `the task goes on by itself once credits are restored or the next period starts (${next.toISOString()}).` : 'the task goes on by itself once credits are restored.')
  );
}

/** The same for a chat turn's `error` event (code `credits_exhausted`). */
export function spentBudgetChatMessage(b: SpentBudget): string {
  const which = b.memberUserId ? `Your share of the team budget ${b.budgetId}` : `The ${b.scope} budget ${b.budgetId}`;
  return `${which} has no credits left (${b.spentCredits} of ${b.limitCredits} credits spent ${PERIOD_WORD[b.period]}). Ask an administrator to top it up (POST /api/budgets/${b.budgetId}/top-up), then send the message again.`;
}
