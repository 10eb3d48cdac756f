import { eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { creditBudgetUsage, creditReservations, type BudgetPeriod, type BudgetScope, type CreditBudgetUsageRow } from '@/db/schema';
import { newId } from '@/db/schema/columns';
import type { ModelTier } from '@/server/models/tiers';
import { roundCredits } from './coverage';
import { alertThresholds } from './alerts';
import { configuredEstimate } from './estimates';
import { fromStored, lockUsageRows, usageRow } from './usage-rows';

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
  /**
   * Held. `farFromLimit`: after it, its budgets still have room for ROOMY_CALLS more calls like
   * it, so no call waits for its settlement, which may then be made after the step (settle-later.ts).
   */
  | { kind: 'reserved'; ref: string; farFromLimit: boolean }
  /** Calls in flight may spend what is left: try again shortly. */
  | { kind: 'busy' }
  | { kind: 'exhausted'; budget: SpentBudget };

export type CallRef = { accountId: string; userId: string; tier: ModelTier; ref: string };

/** What steward_reserve_call (migration 0062) answers. */
export type ReserveResult = {
  kind: 'none' | 'reserved' | 'busy' | 'exhausted';
  /** A reservation just made (migration 0080): what it holds, and the least room its budgets have left after it. */
  amount?: string | number;
  room?: string | number;
  spent?: string | number;
  limit?: string | number;
  budget?: { budgetId: string; scope: BudgetScope; scopeId: string; period: BudgetPeriod; memberUserId: string };
};

/** Where the call's account, user and tier come from: values, or columns of the statement the reservation is folded into. */
type CallSource = { ref: string; accountId: string | SQLWrapper; userId: string | SQLWrapper; tier: string | SQLWrapper };

/**
 * The expression that holds the call's estimated cost on every budget covering its user (or says
 * why it may not start), as one call of the database function steward_reserve_call (migration
 * 0062): it finds the covering budgets, the user's teams and the estimate as coverage.ts does,
 * and steward_reserve_credits (migration 0045) locks the usage rows in one order, applies the rule
 * above and holds the amount, atomically. A caller that reads a row anyway before the call (a
 * run's, model-step.ts) selects it with that read, so the reservation costs no round trip of its own.
 */
export function reservationSql(call: CallSource, now = new Date()): SQL {
  return sql`steward_reserve_call(${newId()}, ${call.ref}, ${call.accountId}, ${call.userId}, ${call.tier}, ${configuredEstimate()}::numeric, ${now.toISOString()}::timestamptz)`;
}

/** The reservation steward_reserve_call answered. */
export function reservationOf(result: ReserveResult, ref: string): Reservation {
  if (result.kind === 'none') return { kind: 'none' };
  if (result.kind === 'busy') return { kind: 'busy' };
  if (result.kind === 'exhausted') {
    const b = result.budget!;
    return {
      kind: 'exhausted',
      budget: {
        budgetId: b.budgetId,
        scope: b.scope,
        scopeId: b.scopeId,
        period: b.period,
        memberUserId: b.memberUserId || null,
        spentCredits: roundCredits(Number(result.spent)),
        limitCredits: roundCredits(Number(result.limit)),
      },
    };
  }
  const amount = Number(result.amount);
  return { kind: 'reserved', ref, farFromLimit: amount > 0 && Number(result.room) >= ROOMY_CALLS * amount };
}

/** How many more calls like it a reservation's budgets must have room for after it for its settlement to wait until after the step. */
export const ROOMY_CALLS = 100;

/** Holds the call's estimated cost on every budget covering its user, or says why it may not start: one round trip (reservationSql). */
export async function reserveCall(db: Db, call: CallRef, now = new Date()): Promise<Reservation> {
  const { rows } = await db.execute<{ result: ReserveResult }>(sql`SELECT ${reservationSql(call, now)} AS result`);
  return reservationOf(rows[0]!.result, call.ref);
}

/** A usage row a settlement charged, as steward_settle_call answers it. */
export type SettledRow = { budget_id: string; period_start: Date | string; member_user_id: string; spent: string | number; reserved: string | number; granted: string | number; alerted: number[]; updated_at: Date | string; limit_credits: string | number; alert_thresholds: number[] };

/**
 * The expression that settles a call: its actual cost replaces its reservation, in one call of the
 * database function steward_settle_call (migration 0062): the reservation settled, its usage rows
 * charged (locked in the order reservations lock them), the estimate raised when this call cost
 * more than any before. A reservation the sweep released meanwhile still charges what was spent; a
 * settled one is left as it is. It answers the charged rows, which settledAlerts looks at. A caller
 * that writes the call's usage row selects it with that write (model-step.ts), so settling costs
 * no round trip of its own.
 */
export function settlementSql(ref: string, tier: ModelTier, credits: number, now = new Date()): SQL<SettledRow[]> {
  return sql<SettledRow[]>`steward_settle_call(${ref}, ${tier}, ${credits}::numeric, ${now.toISOString()}::timestamptz)`;
}

/** Alerts of the rows a settlement charged, looked at only when a threshold may have been crossed. */
export async function settledAlerts(tx: Tx, rows: readonly SettledRow[], now = new Date()): Promise<void> {
  for (const row of rows) {
    if (row.member_user_id !== '' || !crossesThreshold(row)) continue;
    await alertThresholds(tx, usageRowOf(row), now);
  }
}

/**
 * The call's actual cost replaces its reservation, in the caller's transaction (the one that
 * records the call's usage row, so both happen or neither), in one statement (settlementSql).
 */
export async function settleCall(tx: Tx, ref: string, tier: ModelTier, credits: number, now = new Date()): Promise<void> {
  const { rows } = await tx.execute<{ settled: SettledRow[] }>(sql`SELECT ${settlementSql(ref, tier, credits, now)} AS settled`);
  await settledAlerts(tx, rows[0]?.settled ?? [], now);
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
