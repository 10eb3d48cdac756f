import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { creditBudgets, organizations, teams, users, type BudgetScope, type CreditBudgetRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { forbidden, notFound } from '@/server/http/errors';
import { targetsFor } from './coverage';

/*
 * Who reaches which budget. An account-wide credential manages every budget of the account; an
 * organization admin (or the organization's key) manages its organization's budget and those of
 * its teams and users; a user reads the budgets that cover them (GET), and nothing else. A budget
 * the caller may not see, or one of another account, is 404.
 */

/** The organization a budget's scope belongs to (null: none, or the account itself); undefined when the scope names nothing in the account. */
export async function scopeOrganization(tx: Tx, accountId: string, scope: BudgetScope, scopeId: string): Promise<string | null | undefined> {
  if (scope === 'account') return scopeId === accountId ? null : undefined;
  if (scope === 'organization') {
    const [org] = await tx.select({ id: organizations.id }).from(organizations).where(and(eq(organizations.id, scopeId), eq(organizations.accountId, accountId)));
    return org ? org.id : undefined;
  }
  if (scope === 'team') {
    const [team] = await tx.select({ org: teams.organizationId }).from(teams).where(and(eq(teams.id, scopeId), eq(teams.accountId, accountId)));
    return team ? team.org : undefined;
  }
  const [user] = await tx.select({ org: users.organizationId }).from(users).where(and(eq(users.id, scopeId), eq(users.accountId, accountId)));
  return user ? user.org : undefined;
}

/** Whether the caller manages budgets of this scope (whose organization is `org`). */
export function managesScope(actor: Actor, scope: BudgetScope, org: string | null): boolean {
  if (isAccountWide(actor)) return true;
  const administered = administeredOrganization(actor);
  return administered !== null && scope !== 'account' && org === administered;
}

/** Whether the caller manages any budget at all (account-wide, or an organization's admin or key). */
export const managesBudgets = (actor: Actor) => isAccountWide(actor) || administeredOrganization(actor) !== null;

export type BudgetAccess = { budget: CreditBudgetRow; manage: boolean };

/** The budget and whether the caller may change it; 404 when they may not even read it, 403 when they may only read it and `need` is manage. */
export async function budgetFor(tx: Tx, actor: Actor, budgetId: string, need: 'read' | 'manage'): Promise<BudgetAccess> {
  const [budget] = await tx
    .select()
    .from(creditBudgets)
    .where(and(eq(creditBudgets.id, budgetId), eq(creditBudgets.accountId, actor.accountId)));
  if (!budget) throw notFound('Budget');
  const org = await scopeOrganization(tx, actor.accountId, budget.scope, budget.scopeId);
  // A budget whose team or user is gone: only the account manages (and may delete) it.
  const manage = org === undefined ? isAccountWide(actor) : managesScope(actor, budget.scope, org);
  if (manage) return { budget, manage };
  const covers = actor.user ? (await targetsFor(tx, actor.accountId, actor.user.id, new Date())).some((t) => t.budget.id === budget.id) : false;
  if (!covers) throw notFound('Budget');
  if (need === 'manage') throw forbidden('Budgets are managed with an account key, or by an organization admin for their organization', 'budget_admin_required');
  return { budget, manage: false };
}
