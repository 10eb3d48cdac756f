import { and, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { creditBudgetUsage, creditBudgets, teams, users, type BudgetScope, type CreditBudgetRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { conflict, forbidden, invalidFields, notFound, type FieldProblem } from '@/server/http/errors';
import { pageInfo, pageWindow } from '@/server/http/pagination';
import { budgetFor, managesBudgets, managesScope, scopeOrganization } from './access';
import type { BudgetListQuery, CreateBudgetBody, TopUpBody, UpdateBudgetBody } from './contracts';
import { targetsFor } from './coverage';
import { periodStart } from './periods';
import { presentBudget } from './present';
import { resumeForBudget } from './resume';
import { keyOf, lockUsageRows, readUsageRows, usageRow } from './usage-rows';
import { recordAudit } from '@/server/audit/record';

/*
 * Credit budgets (issue: limits that hold under concurrency): create, list, read, change, top up
 * and delete, for the API and the admin CLI. Every answer carries the current period's figures.
 * A change that may give room (a top-up, a raised limit, a deleted budget) resumes the covered
 * users' credits_blocked tasks in the same transaction (resume.ts).
 */

const SCOPE_NAMES: Record<BudgetScope, string> = { account: 'Account', organization: 'Organization', team: 'Team', user: 'User' };

const onlyTeams = (scope: BudgetScope, memberLimitCredits: number | null | undefined): FieldProblem[] =>
  scope !== 'team' && memberLimitCredits !== undefined && memberLimitCredits !== null ? [{ field: 'memberLimitCredits', problem: 'applies to team budgets only' }] : [];

/** Budgets with their current period's usage row, as the API shows them. */
export async function presentBudgets(tx: Tx, rows: CreditBudgetRow[], now = new Date()) {
  const keys = rows.map((b) => ({ budgetId: b.id, periodStart: periodStart(b.period, now), memberUserId: '' }));
  const usage = await readUsageRows(tx, keys);
  return rows.map((b, i) => presentBudget(b, usage.get(keyOf(keys[i])), now));
}

/** What an audit event shows of a budget, and the organization whose log it belongs to (an account's own: none). */
const budgetSettings = (b: CreditBudgetRow) => ({ scope: b.scope, scopeId: b.scopeId, period: b.period, limitCredits: b.limitCredits, memberLimitCredits: b.memberLimitCredits, alertThresholds: b.alertThresholds });
const budgetOrganization = async (tx: Tx, b: CreditBudgetRow) => (await scopeOrganization(tx, b.accountId, b.scope, b.scopeId)) ?? null;

async function envelope(tx: Tx, budget: CreditBudgetRow, now: Date) {
  const [presented] = await presentBudgets(tx, [budget], now);
  return { ok: true as const, budget: presented };
}

export type NewBudget = { scope: BudgetScope; scopeId: string; period: CreditBudgetRow['period']; limitCredits: number; memberLimitCredits?: number | null; alertThresholds?: number[] };

/** Records a budget for a scope that was checked; 409 naming the existing one when the scope has one already. */
export async function insertBudget(tx: Tx, accountId: string, input: NewBudget): Promise<CreditBudgetRow> {
  const [row] = await tx
    .insert(creditBudgets)
    .values({ accountId, ...input, memberLimitCredits: input.memberLimitCredits ?? null, ...(input.alertThresholds ? { alertThresholds: input.alertThresholds } : {}) })
    .onConflictDoNothing()
    .returning();
  if (row) return row;
  const [existing] = await tx
    .select({ id: creditBudgets.id })
    .from(creditBudgets)
    .where(and(eq(creditBudgets.accountId, accountId), eq(creditBudgets.scope, input.scope), eq(creditBudgets.scopeId, input.scopeId)));
  throw conflict(`This ${input.scope} already has a budget: change it with PATCH /budgets/${existing?.id ?? '{budgetId}'}`, { budgetId: existing?.id ?? null }, 'budget_exists');
}

/** The scope a create names, checked against the caller: 404 for what they cannot see, 403 for the account's own budget. */
async function checkedScope(tx: Tx, actor: Actor, scope: BudgetScope, scopeId: string | undefined): Promise<string> {
  if (!managesBudgets(actor)) throw forbidden('Budgets are managed with an account key, or by an organization admin for their organization', 'budget_admin_required');
  const id = scope === 'account' ? (scopeId ?? actor.accountId) : scopeId;
  if (!id) throw invalidFields([{ field: 'scopeId', problem: `is required for scope ${scope}` }]);
  const org = await scopeOrganization(tx, actor.accountId, scope, id);
  if (org === undefined) {
    if (scope === 'account') throw invalidFields([{ field: 'scopeId', problem: 'must be this account’s id (or omitted) for scope account' }]);
    throw notFound(SCOPE_NAMES[scope]);
  }
  if (!managesScope(actor, scope, org)) {
    if (scope === 'account' || isAccountWide(actor)) throw forbidden('The account’s own budget is managed with an account key', 'budget_admin_required');
    throw notFound(SCOPE_NAMES[scope]);
  }
  return id;
}

export async function createBudget(db: Db, actor: Actor, input: z.infer<typeof CreateBudgetBody>, now = new Date()) {
  const problems = onlyTeams(input.scope, input.memberLimitCredits);
  if (problems.length) throw invalidFields(problems);
  return db.transaction(async (tx) => {
    const scopeId = await checkedScope(tx, actor, input.scope, input.scopeId);
    const row = await insertBudget(tx, actor.accountId, { ...input, scopeId });
    await recordAudit(tx, actor, 'budget.created', { type: 'budget', id: row.id }, { organizationId: await budgetOrganization(tx, row), after: budgetSettings(row) });
    return envelope(tx, row, now);
  });
}

/** The budgets the caller reaches: the account's, an organization's own and its teams' and users', or (as a user) those covering them. */
function reachable(actor: Actor): SQL | null {
  if (isAccountWide(actor)) return null;
  const org = administeredOrganization(actor);
  if (!org) return sql`false`;
  return or(
    and(eq(creditBudgets.scope, 'organization'), eq(creditBudgets.scopeId, org)),
    and(eq(creditBudgets.scope, 'team'), inArray(creditBudgets.scopeId, sqlIds(teams, teams.id, and(eq(teams.accountId, actor.accountId), eq(teams.organizationId, org))!))),
    and(eq(creditBudgets.scope, 'user'), inArray(creditBudgets.scopeId, sqlIds(users, users.id, and(eq(users.accountId, actor.accountId), eq(users.organizationId, org))!))),
  )!;
}

const sqlIds = (table: typeof teams | typeof users, column: typeof teams.id | typeof users.id, where: SQL) => sql`(SELECT ${column} FROM ${table} WHERE ${where})`;

export async function listBudgets(db: Db, actor: Actor, q: z.infer<typeof BudgetListQuery>, now = new Date()) {
  const filters: (SQL | undefined)[] = [eq(creditBudgets.accountId, actor.accountId)];
  if (q.scope) filters.push(eq(creditBudgets.scope, q.scope));
  if (q.scopeId) filters.push(eq(creditBudgets.scopeId, q.scopeId));
  const scoped = reachable(actor);
  if (scoped && actor.user && !managesBudgets(actor)) {
    // A plain user: the budgets covering them.
    const ids = (await targetsFor(db, actor.accountId, actor.user.id, now)).map((t) => t.budget.id);
    filters.push(ids.length ? inArray(creditBudgets.id, ids) : sql`false`);
  } else if (scoped) {
    // An organization admin also reads the budgets covering them (the account's), not only those they manage.
    const own = actor.user ? (await targetsFor(db, actor.accountId, actor.user.id, now)).map((t) => t.budget.id) : [];
    filters.push(own.length ? or(scoped, inArray(creditBudgets.id, own)) : scoped);
  }
  const where = and(...filters);
  const { limit, offset } = pageWindow(q);
  const [rows, [{ n }]] = await Promise.all([
    db.select().from(creditBudgets).where(where).orderBy(desc(creditBudgets.createdAt), desc(creditBudgets.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(creditBudgets).where(where),
  ]);
  return { ok: true as const, budgets: await presentBudgets(db, rows, now), ...pageInfo(q, n) };
}

export async function getBudget(db: Db, actor: Actor, budgetId: string, now = new Date()) {
  const { budget } = await budgetFor(db, actor, budgetId, 'read');
  return envelope(db, budget, now);
}

export type BudgetChanges = Partial<Pick<CreditBudgetRow, 'period' | 'limitCredits' | 'memberLimitCredits' | 'alertThresholds'>>;

/** Applies checked changes; the covered users' blocked tasks resume if the budget has room now. */
export async function changeBudget(tx: Tx, budget: CreditBudgetRow, changes: BudgetChanges, now = new Date()): Promise<CreditBudgetRow> {
  const problems = onlyTeams(budget.scope, changes.memberLimitCredits);
  if (problems.length) throw invalidFields(problems);
  const [row] = await tx.update(creditBudgets).set(changes).where(eq(creditBudgets.id, budget.id)).returning();
  if (!row) throw notFound('Budget');
  await resumeForBudget(tx, row, now);
  return row;
}

export async function updateBudget(db: Db, actor: Actor, budgetId: string, input: z.infer<typeof UpdateBudgetBody>, now = new Date()) {
  return db.transaction(async (tx) => {
    const { budget } = await budgetFor(tx, actor, budgetId, 'manage');
    const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as BudgetChanges;
    const changed = await changeBudget(tx, budget, changes, now);
    await recordAudit(tx, actor, 'budget.changed', { type: 'budget', id: budget.id }, { organizationId: await budgetOrganization(tx, budget), before: budgetSettings(budget), after: budgetSettings(changed) });
    return envelope(tx, changed, now);
  });
}

/** Adds credits to the budget's current period (for `none`, to its balance for good); blocked tasks resume if there is room now. */
export async function addCredits(tx: Tx, budget: CreditBudgetRow, credits: number, now = new Date()): Promise<void> {
  const key = { budgetId: budget.id, periodStart: periodStart(budget.period, now), memberUserId: '' };
  await lockUsageRows(tx, [key]);
  await tx
    .update(creditBudgetUsage)
    .set({ granted: sql`${creditBudgetUsage.granted} + ${credits}`, updatedAt: now })
    .where(usageRow(key));
  await resumeForBudget(tx, budget, now);
}

export async function topUpBudget(db: Db, actor: Actor, budgetId: string, input: z.infer<typeof TopUpBody>, now = new Date()) {
  return db.transaction(async (tx) => {
    const { budget } = await budgetFor(tx, actor, budgetId, 'manage');
    await addCredits(tx, budget, input.credits, now);
    await recordAudit(tx, actor, 'budget.topped_up', { type: 'budget', id: budget.id }, { organizationId: await budgetOrganization(tx, budget), after: { credits: input.credits } });
    return envelope(tx, budget, now);
  });
}

/** Deletes the budget with its usage; it no longer holds anyone's tasks back. */
export async function removeBudget(tx: Tx, budget: CreditBudgetRow, now = new Date()): Promise<void> {
  await tx.delete(creditBudgets).where(eq(creditBudgets.id, budget.id));
  await resumeForBudget(tx, budget, now);
}

export async function deleteBudget(db: Db, actor: Actor, budgetId: string, now = new Date()) {
  return db.transaction(async (tx) => {
    const { budget } = await budgetFor(tx, actor, budgetId, 'manage');
    await removeBudget(tx, budget, now);
    await recordAudit(tx, actor, 'budget.deleted', { type: 'budget', id: budget.id }, { organizationId: await budgetOrganization(tx, budget), before: budgetSettings(budget) });
    return { ok: true as const, budget: { id: budget.id, deleted: true as const } };
  });
}
