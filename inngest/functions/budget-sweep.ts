import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { sweepBudgets } from '@/server/budgets/sweep';
import { inngest } from '../client';

/**
 * Every minute: reservations a crashed process left held are released, and tasks blocked on a
 * budget that has room again (a new day, week or month began) resume (server/budgets/sweep.ts).
 * Overlapping runs are safe: every change is made under the rows' locks and checked again there.
 */
export const budgetSweep = inngest.createFunction({ id: 'budget-sweep', retries: 1, triggers: [cron('* * * * *')] }, async ({ step }) =>
  step.run('sweep', () => sweepBudgets(sharedDatabase().db)),
);
