import type { BudgetPeriod } from '@/db/schema';

/*
 * A budget's periods, in UTC: a day from midnight, a week from Monday midnight (ISO weeks), a
 * month from the first. `none` has one period for ever, starting at the Unix epoch: its usage
 * row is the balance's whole history.
 */

const DAY_MS = 86_400_000;

/** When the period holding `at` began. */
export function periodStart(period: BudgetPeriod, at: Date): Date {
  if (period === 'none') return new Date(0);
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  if (period === 'day') return new Date(day);
  if (period === 'week') return new Date(day - ((at.getUTCDay() + 6) % 7) * DAY_MS);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** When the period holding `at` ends (the next one's start); null for `none`. */
export function periodEnd(period: BudgetPeriod, at: Date): Date | null {
  if (period === 'none') return null;
  const start = periodStart(period, at);
  if (period === 'day') return new Date(start.getTime() + DAY_MS);
  if (period === 'week') return new Date(start.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}
