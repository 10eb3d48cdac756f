import { and, eq, or } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { creditBudgetUsage, type CreditBudgetUsageRow, type ReservationTarget } from '@/db/schema';
import { roundCredits, type Target } from './coverage';

/*
 * The usage rows of budgets' periods (credit_budget_usage): made when first needed, and locked in
 * one order (budget id, then member) by everything that changes them, so concurrent reservations
 * and settlements of one budget queue on its rows and never deadlock.
 */

export type RowKey = { budgetId: string; periodStart: Date; memberUserId: string };

export const keyOf = (k: RowKey) => `${k.budgetId}|${k.periodStart.toISOString()}|${k.memberUserId}`;

export const fromStored = (t: ReservationTarget): RowKey => ({ budgetId: t.budgetId, periodStart: new Date(t.periodStart), memberUserId: t.memberUserId });

/** The condition naming one usage row. */
export const usageRow = (k: RowKey) => and(eq(creditBudgetUsage.budgetId, k.budgetId), eq(creditBudgetUsage.periodStart, k.periodStart), eq(creditBudgetUsage.memberUserId, k.memberUserId));

const matching = (keys: RowKey[]) => or(...keys.map(usageRow));

const sorted = (keys: RowKey[]) => [...keys].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));

/** The rows, created when missing, locked until the transaction ends; keyed by keyOf. */
export async function lockUsageRows(tx: Tx, keys: RowKey[]): Promise<Map<string, CreditBudgetUsageRow>> {
  if (!keys.length) return new Map();
  const ordered = sorted(keys);
  await tx
    .insert(creditBudgetUsage)
    .values(ordered.map((k) => ({ budgetId: k.budgetId, periodStart: k.periodStart, memberUserId: k.memberUserId })))
    .onConflictDoNothing();
  const rows = await tx
    .select()
    .from(creditBudgetUsage)
    .where(matching(ordered))
    .orderBy(creditBudgetUsage.budgetId, creditBudgetUsage.periodStart, creditBudgetUsage.memberUserId)
    .for('update');
  return new Map(rows.map((r) => [keyOf(r), r]));
}

/** The rows as they are, without creating or locking them (a missing row has used nothing). */
export async function readUsageRows(tx: Tx, keys: RowKey[]): Promise<Map<string, CreditBudgetUsageRow>> {
  if (!keys.length) return new Map();
  const rows = await tx.select().from(creditBudgetUsage).where(matching(keys));
  return new Map(rows.map((r) => [keyOf(r), r]));
}

/** A period's figures, zero when nothing has been used yet. */
export const figures = (row: CreditBudgetUsageRow | undefined) => ({ spent: row?.spent ?? 0, reserved: row?.reserved ?? 0, granted: row?.granted ?? 0, alerted: row?.alerted ?? [] });

/** What a target may spend in its period: a member's share, or the budget's limit plus the period's top-ups. */
export const limitOf = (t: Pick<Target, 'budget' | 'shareLimit' | 'memberUserId'>, row: CreditBudgetUsageRow | undefined) =>
  t.shareLimit ?? roundCredits(t.budget.limitCredits + figures(row).granted);
