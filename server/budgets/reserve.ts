import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { creditBudgetUsage, creditReservations, type BudgetPeriod, type BudgetScope, type CreditBudgetUsageRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import type { ModelTier } from '@/server/agent/models/tiers';
import { coveringBudgets, roundCredits, targetsOf, type Target } from './coverage';
import { alertThresholds } from './alerts';
import { configuredEstimate } from './estimates';
import { fromStored, lockUsageRows, toStored, usageRow } from './usage-rows';

/*
 * Every model call of a task run or a chat turn reserves its estimated cost against every budget
 * covering its user before it is made, and settles the actual cost after (issue: limits that hold
 * under concurrency). All of it happens under the row locks of the budgets' usage rows, so the
 * rule below holds however many calls race:
 *
 * - a call starts when, on every budget, spent + reserved + estimate ≤ limit;
 * - a call that does not fit may still start when, on each budget where it does not fit, nothing
 *   else is reserved and spent < limit: the last stretch of a budget is walked one call at a time;
 * - a budget whose spent reached its limit starts nothing.
 *
 * So a budget is exceeded by at most one call (the last one, whose real cost was more than what
 * was left), as long as no call costs more than the estimate (the largest cost seen, estimates.ts).
 * The reservation's `ref` names the call (`run:<runId>:<seq>`, `turn:<turnId>:<step>`): a retried
 * step finds its reservation instead of taking a second one.
 */

/** A budget that stopped a call, as the task's activity, the chat's error and the API name it. */
export type SpentBudget = {
  budgetId: string;
  scope: BudgetScope;
  scopeId: string;
  period: BudgetPeriod;
  /** Set when it is the user's share of a team budget that is spent. */
  memberUserId: string | null;
  spentCredits: number;
  limitCredits: number;
};

export type Reservation =
  /** No budget covers the user: the call goes ahead and nothing is held. */
  | { kind: 'none' }
  | { kind: 'reserved'; ref: string }
  /** Calls in flight may spend what is left: try again shortly. */
  | { kind: 'busy' }
  | { kind: 'exhausted'; budget: SpentBudget };

export type CallRef = { accountId: string; userId: string; tier: ModelTier; ref: string };

const spentBudget = (t: Target, spent: number, limit: number): SpentBudget => ({
  budgetId: t.budget.id,
  scope: t.budget.scope,
  scopeId: t.budget.scopeId,
  period: t.budget.period,
  memberUserId: t.memberUserId || null,
  spentCredits: roundCredits(spent),
  limitCredits: roundCredits(limit),
});

/**
 * Holds the call's estimated cost on every budget covering its user, or says why it may not start.
 * Two round trips, as it runs before every model call: one read finds the covering budgets, the
 * user's teams and the estimate (coverage.ts decides the targets from them), and one call of the
 * database function steward_reserve_credits (migration 0045) locks the usage rows in one order,
 * applies the rule above and holds the amount, atomically.
 */
export async function reserveCall(db: Db, call: CallRef, now = new Date()): Promise<Reservation> {
  const covering = await coveringBudgets(db, call.accountId, call.userId, call.tier);
  // The common case, an account without budgets for this user, costs this one read.
  if (!covering.budgets.length) return { kind: 'none' };
  const targets = targetsOf(covering.budgets, covering.teams, call.userId, now);
  const estimate = covering.estimate ?? configuredEstimate();
  const param = targets.map((t, idx) => ({ ...toStored(t), baseLimit: t.budget.limitCredits, shareLimit: t.shareLimit, idx }));
  const { rows } = await db.execute<{ result: { kind: 'reserved' | 'busy' | 'exhausted'; index?: number; spent?: string | number; limit?: string | number } }>(
    sql`SELECT steward_reserve_credits(${newId()}, ${call.ref}, ${call.accountId}, ${call.userId}, ${JSON.stringify(param)}::jsonb, ${estimate}::numeric, ${now.toISOString()}::timestamptz) AS result`,
  );
  const result = rows[0]!.result;
  if (result.kind === 'busy') return { kind: 'busy' };
  if (result.kind === 'exhausted') return { kind: 'exhausted', budget: spentBudget(targets[result.index!]!, Number(result.spent), Number(result.limit)) };
  return { kind: 'reserved', ref: call.ref };
}

type SettledRow = { budget_id: string; period_start: Date | string; member_user_id: string; spent: string; reserved: string; granted: string; alerted: number[]; updated_at: Date | string; limit_credits: string; alert_thresholds: number[] };

/**
 * The call's actual cost replaces its reservation, in the caller's transaction (the one that
 * records the call's usage row, so both happen or neither), in one statement: the reservation
 * settled, its usage rows charged (locked in the order reservations lock them), the estimate
 * raised when this call cost more than any before. A reservation the sweep released meanwhile
 * still charges what was spent; a settled one is left as it is. Alerts are looked at only when a
 * threshold may have been crossed.
 */
export async function settleCall(tx: Tx, ref: string, tier: ModelTier, credits: number, now = new Date()): Promise<void> {
  const { rows } = await tx.execute<SettledRow>(sql`
    WITH old AS (
      SELECT id, status, amount FROM credit_reservations WHERE ref = ${ref} AND status <> 'settled' FOR UPDATE
    ), r AS (
      UPDATE credit_reservations c SET status = 'settled', settled_credits = ${credits}, settled_at = ${now.toISOString()}::timestamptz
      FROM old WHERE c.id = old.id
      RETURNING c.account_id, c.targets, CASE WHEN old.status = 'held' THEN old.amount ELSE 0 END AS held
    ), keys AS (
      SELECT u.budget_id, u.period_start, u.member_user_id, r.held FROM credit_budget_usage u, r,
        jsonb_to_recordset(r.targets) AS t("budgetId" text, "periodStart" timestamptz, "memberUserId" text)
      WHERE u.budget_id = t."budgetId" AND u.period_start = t."periodStart" AND u.member_user_id = t."memberUserId"
      ORDER BY u.budget_id, u.period_start, u.member_user_id
      FOR UPDATE OF u
    ), charged AS (
      UPDATE credit_budget_usage u SET spent = u.spent + ${credits}, reserved = greatest(u.reserved - keys.held, 0), updated_at = ${now.toISOString()}::timestamptz
      FROM keys WHERE u.budget_id = keys.budget_id AND u.period_start = keys.period_start AND u.member_user_id = keys.member_user_id
      RETURNING u.*
    ), estimate AS (
      INSERT INTO credit_estimates (account_id, model_tier, credits)
      SELECT r.account_id, ${tier}, ${credits} FROM r
      WHERE NOT EXISTS (SELECT 1 FROM credit_estimates e WHERE e.account_id = r.account_id AND e.model_tier = ${tier} AND e.credits >= ${credits})
      ON CONFLICT (account_id, model_tier) DO UPDATE SET credits = greatest(credit_estimates.credits, EXCLUDED.credits), updated_at = now()
    )
    SELECT charged.*, b.limit_credits, b.alert_thresholds FROM charged JOIN credit_budgets b ON b.id = charged.budget_id`);
  for (const row of rows) {
    if (row.member_user_id !== '' || !crossesThreshold(row)) continue;
    await alertThresholds(tx, usageRowOf(row), now);
  }
}

/** Whether the period's spend reached a threshold it has not announced yet. */
function crossesThreshold(row: SettledRow): boolean {
  const limit = roundCredits(Number(row.limit_credits) + Number(row.granted));
  const spent = Number(row.spent);
  return row.alert_thresholds.some((t) => !row.alerted.includes(t) && roundCredits(spent * 100) >= roundCredits(t * limit));
}

const usageRowOf = (row: SettledRow): CreditBudgetUsageRow => ({
  budgetId: row.budget_id,
  periodStart: new Date(row.period_start),
  memberUserId: row.member_user_id,
  spent: Number(row.spent),
  reserved: Number(row.reserved),
  granted: Number(row.granted),
  alerted: row.alerted,
  updatedAt: new Date(row.updated_at),
});

/** The call was not made (or failed): what it held is free again. */
export async function releaseCall(tx: Tx, ref: string, now = new Date()): Promise<void> {
  const [r] = await tx.select().from(creditReservations).where(eq(creditReservations.ref, ref)).for('update');
  if (!r || r.status !== 'held') return;
  const rows = await lockUsageRows(tx, await existing(tx, r.targets.map(fromStored)));
  for (const row of rows.values()) {
    await tx
      .update(creditBudgetUsage)
      .set({ reserved: sql`greatest(${creditBudgetUsage.reserved} - ${r.amount}, 0)`, updatedAt: now })
      .where(usageRow(row));
  }
  await tx.update(creditReservations).set({ status: 'released', settledAt: now }).where(eq(creditReservations.id, r.id));
}

/** The keys whose budget still exists (a budget deleted since the reservation took its usage rows with it), its row kept from deletion until the end of the transaction. */
async function existing(tx: Tx, keys: ReturnType<typeof fromStored>[]) {
  if (!keys.length) return [];
  const ids = [...new Set(keys.map((k) => k.budgetId))];
  const { rows } = await tx.execute<{ id: string }>(sql`SELECT id FROM credit_budgets WHERE id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) FOR KEY SHARE`);
  const alive = new Set(rows.map((r) => r.id));
  return keys.filter((k) => alive.has(k.budgetId));
}
