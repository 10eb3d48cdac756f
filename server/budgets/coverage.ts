import { and, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { creditBudgets, teamMemberships, teams, users, type CreditBudgetRow } from '@/db/schema';
import { periodStart } from './periods';

/*
 * Which budgets cover a user's model calls (issue: limits that hold under concurrency): the
 * account's, the user's organization's, each of the user's active teams' (and, when the team gives
 * members a share, the user's share of it), and the user's own. Every one of them must have room
 * for a call to start. The database function steward_reserve_call (migration 0062) finds the same
 * targets for a reservation in the statement that makes it: a change here is made there too.
 */

/** One row of credit_budget_usage a call counts against: a budget as a whole (`memberUserId` '') or one member's share. */
export type Target = {
  budget: CreditBudgetRow;
  budgetId: string;
  memberUserId: string;
  periodStart: Date;
  /** A member share's limit (memberLimitCredits × multiplier); null for the budget as a whole, whose limit also counts the period's top-ups. */
  shareLimit: number | null;
};

/** The user's organization and active teams (with their credit multiplier), as budgets see them. */
async function membership(tx: Tx, accountId: string, userId: string) {
  const [user] = await tx.select({ organizationId: users.organizationId }).from(users).where(and(eq(users.id, userId), eq(users.accountId, accountId)));
  const teamRows = await tx
    .select({ teamId: teamMemberships.teamId, multiplier: teamMemberships.multiplier })
    .from(teamMemberships)
    .innerJoin(teams, eq(teams.id, teamMemberships.teamId))
    .where(and(eq(teamMemberships.userId, userId), eq(teamMemberships.accountId, accountId), eq(teamMemberships.status, 'active'), eq(teams.status, 'active')));
  return { organizationId: user?.organizationId ?? null, teams: teamRows };
}

/** Every budget covering the user's calls, with the row each call counts against, in lock order (budget id, then member). */
export async function targetsFor(tx: Tx, accountId: string, userId: string, now: Date): Promise<Target[]> {
  const m = await membership(tx, accountId, userId);
  const scopes: SQL[] = [and(eq(creditBudgets.scope, 'account'), eq(creditBudgets.scopeId, accountId))!, and(eq(creditBudgets.scope, 'user'), eq(creditBudgets.scopeId, userId))!];
  if (m.organizationId) scopes.push(and(eq(creditBudgets.scope, 'organization'), eq(creditBudgets.scopeId, m.organizationId))!);
  if (m.teams.length) scopes.push(and(eq(creditBudgets.scope, 'team'), inArray(creditBudgets.scopeId, m.teams.map((t) => t.teamId)))!);
  const budgets = await tx
    .select()
    .from(creditBudgets)
    .where(and(eq(creditBudgets.accountId, accountId), or(...scopes)))
    // Kept from deletion until the caller's transaction ends: their usage rows are made next.
    .for('key share');
  return targetsOf(budgets, m.teams, userId, now);
}

/** The targets of these budgets for one user: each budget as a whole, and a team's member share, in lock order. */
function targetsOf(budgets: readonly CreditBudgetRow[], teams: readonly { teamId: string; multiplier: number | null }[], userId: string, now: Date): Target[] {
  const targets: Target[] = [];
  for (const budget of budgets) {
    const start = periodStart(budget.period, now);
    targets.push({ budget, budgetId: budget.id, memberUserId: '', periodStart: start, shareLimit: null });
    if (budget.scope === 'team' && budget.memberLimitCredits !== null) {
      const multiplier = teams.find((t) => t.teamId === budget.scopeId)?.multiplier ?? 1;
      targets.push({ budget, budgetId: budget.id, memberUserId: userId, periodStart: start, shareLimit: roundCredits(budget.memberLimitCredits * multiplier) });
    }
  }
  return targets.sort((a, b) => (a.budget.id === b.budget.id ? a.memberUserId.localeCompare(b.memberUserId) : a.budget.id.localeCompare(b.budget.id)));
}

/** Credits to six decimals, as the numeric columns keep them: sums of binary fractions would drift otherwise. */
export const roundCredits = (n: number) => Math.round(n * 1e6) / 1e6;
