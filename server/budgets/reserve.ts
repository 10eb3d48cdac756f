import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { creditBudgetUsage, creditBudgets, creditReservations, type BudgetPeriod, type BudgetScope } from '@/db/schema';
import type { ModelTier } from '@/server/agent/models/tiers';
import { roundCredits, targetsFor, type Target } from './coverage';
import { alertThresholds } from './alerts';
import { callEstimate, noteCallCost } from './estimates';
import { figures, fromStored, keyOf, limitOf, lockUsageRows, toStored, usageRow } from './usage-rows';

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

/** Holds the call's estimated cost on every budget covering its user, or says why it may not start. */
export async function reserveCall(db: Db, call: CallRef, now = new Date()): Promise<Reservation> {
  // The common case, an account without budgets, costs this one indexed read.
  const [any] = await db.select({ id: creditBudgets.id }).from(creditBudgets).where(eq(creditBudgets.accountId, call.accountId)).limit(1);
  if (!any) return { kind: 'none' };
  return db.transaction(async (tx) => {
    const [earlier] = await tx.select().from(creditReservations).where(eq(creditReservations.ref, call.ref)).for('update');
    // A retried step: the call holds its reservation already, or was settled by an attempt whose result was lost (it is not charged twice).
    if (earlier && earlier.status !== 'released') return { kind: 'reserved', ref: call.ref };
    const targets = await targetsFor(tx, call.accountId, call.userId, now);
    if (!targets.length) return { kind: 'none' };
    const rows = await lockUsageRows(tx, targets);
    const estimate = await callEstimate(tx, call.accountId, call.tier);

    let exhausted: SpentBudget | null = null;
    let busy = false;
    let room = Infinity;
    for (const t of targets) {
      const row = rows.get(keyOf(t));
      const { spent, reserved } = figures(row);
      const limit = limitOf(t, row);
      room = Math.min(room, limit - spent - reserved);
      if (spent >= limit) exhausted ??= spentBudget(t, spent, limit);
      else if (estimate !== null && roundCredits(spent + reserved + estimate) <= limit) continue;
      else if (reserved > 0) busy = true;
    }
    if (exhausted) return { kind: 'exhausted', budget: exhausted };
    if (busy) return { kind: 'busy' };

    // An unknown cost holds what is left, so nothing else starts beside it on these budgets.
    const amount = estimate ?? Math.max(roundCredits(room), 0.000001);
    for (const t of targets) {
      await tx
        .update(creditBudgetUsage)
        .set({ reserved: sql`${creditBudgetUsage.reserved} + ${amount}`, updatedAt: now })
        .where(usageRow(t));
    }
    const held = { accountId: call.accountId, userId: call.userId, ref: call.ref, amount, targets: targets.map(toStored), status: 'held' as const, settledCredits: null, settledAt: null, createdAt: now };
    if (earlier) await tx.update(creditReservations).set(held).where(eq(creditReservations.id, earlier.id));
    else await tx.insert(creditReservations).values(held);
    return { kind: 'reserved', ref: call.ref };
  });
}

/**
 * The call's actual cost replaces its reservation, in the caller's transaction (the one that
 * records the call's usage row, so both happen or neither). A reservation the sweep released
 * meanwhile still charges what was spent; a settled one is left as it is.
 */
export async function settleCall(tx: Tx, ref: string, tier: ModelTier, credits: number, now = new Date()): Promise<void> {
  const [r] = await tx.select().from(creditReservations).where(eq(creditReservations.ref, ref)).for('update');
  if (!r || r.status === 'settled') return;
  const held = r.status === 'held' ? r.amount : 0;
  const keys = r.targets.map(fromStored);
  const rows = await lockUsageRows(tx, await existing(tx, keys));
  for (const row of rows.values()) {
    const [after] = await tx
      .update(creditBudgetUsage)
      .set({ spent: sql`${creditBudgetUsage.spent} + ${credits}`, reserved: sql`greatest(${creditBudgetUsage.reserved} - ${held}, 0)`, updatedAt: now })
      .where(usageRow(row))
      .returning();
    if (after && after.memberUserId === '') await alertThresholds(tx, after, now);
  }
  await tx.update(creditReservations).set({ status: 'settled', settledCredits: credits, settledAt: now }).where(eq(creditReservations.id, r.id));
  await noteCallCost(tx, r.accountId, tier, credits);
}

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
