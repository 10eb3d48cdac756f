import type { Tx } from '@/db/client';
import { targetsFor } from './coverage';
import type { SpentBudget } from './reserve';
import { figures, keyOf, limitOf, readUsageRows } from './usage-rows';

/** A budget covering the user that is spent now (reservations in flight aside), or null: read only, as GET /credits reads it. */
export async function spentBudgetOf(tx: Tx, accountId: string, userId: string, now = new Date()): Promise<SpentBudget | null> {
  const targets = await targetsFor(tx, accountId, userId, now);
  const rows = await readUsageRows(tx, targets);
  for (const t of targets) {
    const row = rows.get(keyOf(t));
    const spent = figures(row).spent;
    const limit = limitOf(t, row);
    if (spent >= limit) {
      return { budgetId: t.budgetId, scope: t.budget.scope, scopeId: t.budget.scopeId, period: t.budget.period, memberUserId: t.memberUserId || null, spentCredits: spent, limitCredits: limit };
    }
  }
  return null;
}

/** Whether a call of the user could start budget-wise now: no budget covering them is spent (reservations in flight aside). */
export async function userHasRoom(tx: Tx, accountId: string, userId: string, now = new Date()): Promise<boolean> {
  return (await spentBudgetOf(tx, accountId, userId, now)) === null;
}
