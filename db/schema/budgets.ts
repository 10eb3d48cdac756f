import { sql } from 'drizzle-orm';
import { index, integer, jsonb, numeric, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { modelTiers } from './agent';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { taskRuns, tasks } from './tasks';

/*
 * Credits and budgets (issue: limits that hold under concurrency). A budget caps what model calls
 * may cost within a period, for an account, an organization, a team or one user; a team budget may
 * also give each member a share (memberLimitCredits × the member's `multiplier`). `period: none` is
 * a balance: only a top-up raises it. Every model call reserves its estimated cost against each
 * budget that covers its user before it is made, and settles the actual cost after, so concurrent
 * runs overshoot a budget by at most one call.
 */

export const budgetScopes = ['account', 'organization', 'team', 'user'] as const;
export type BudgetScope = (typeof budgetScopes)[number];
export const budgetPeriods = ['day', 'week', 'month', 'none'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

const credits = (name: string) => numeric(name, { precision: 20, scale: 6, mode: 'number' });

export const creditBudgets = pgTable(
  'credit_budgets',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    scope: text('scope', { enum: budgetScopes }).notNull(),
    /** The account, organization, team or user id the budget covers. */
    scopeId: text('scope_id').notNull(),
    period: text('period', { enum: budgetPeriods }).notNull().default('month'),
    limitCredits: credits('limit_credits').notNull(),
    /** Team budgets only: each member's share, multiplied by their team `multiplier` (1 when null). */
    memberLimitCredits: credits('member_limit_credits'),
    /** Percentages of the limit at which `budget.threshold_reached` is emitted, once per period each. */
    alertThresholds: integer('alert_thresholds').array().notNull().default(sql`'{50,80,100}'::integer[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('credit_budgets_scope').on(t.accountId, t.scope, t.scopeId), index('credit_budgets_scope_id').on(t.scopeId)],
);

export type CreditBudgetRow = typeof creditBudgets.$inferSelect;

/**
 * What a budget's period has used: settled spend and reservations of calls in flight. One row per
 * budget and period (its start; the Unix epoch for `none`), and per member for a team's shares
 * (`memberUserId`; '' is the budget as a whole).
 */
export const creditBudgetUsage = pgTable(
  'credit_budget_usage',
  {
    budgetId: text('budget_id')
      .notNull()
      .references(() => creditBudgets.id, { onDelete: 'cascade' }),
    periodStart: ts('period_start').notNull(),
    memberUserId: text('member_user_id').notNull().default(''),
    spent: credits('spent').notNull().default(0),
    reserved: credits('reserved').notNull().default(0),
    /** Top-ups of this period (the budget as a whole): its limit is limitCredits + granted. For `none` they add up for good. */
    granted: credits('granted').notNull().default(0),
    /** Thresholds already alerted in this period. */
    alerted: integer('alerted').array().notNull().default(sql`'{}'::integer[]`),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.budgetId, t.periodStart, t.memberUserId] })],
);

export type CreditBudgetUsageRow = typeof creditBudgetUsage.$inferSelect;

export type ReservationTarget = { budgetId: string; periodStart: string; memberUserId: string };

/**
 * One model call's reservation: taken before the call, settled with its actual cost after (or
 * released when the call was not made). `ref` names the call (`run:<runId>:<seq>`,
 * `turn:<turnId>:<step>`) so a retried step reserves once. Reservations a crash left `held` are
 * released by the sweep after a while.
 */
export const creditReservations = pgTable(
  'credit_reservations',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    ref: text('ref').notNull(),
    amount: credits('amount').notNull(),
    targets: jsonb('targets').$type<ReservationTarget[]>().notNull().default([]),
    status: text('status', { enum: ['held', 'settled', 'released'] }).notNull().default('held'),
    settledCredits: credits('settled_credits'),
    createdAt: createdAt(),
    settledAt: ts('settled_at'),
  },
  (t) => [uniqueIndex('credit_reservations_ref').on(t.ref), index('credit_reservations_held').on(t.createdAt).where(sql`${t.status} = 'held'`)],
);

export type CreditReservationRow = typeof creditReservations.$inferSelect;

/**
 * What one model call of an account's tier may cost: the largest charged cost seen so far. A
 * reservation takes this much; with no row yet a call runs alone (see server/budgets/reserve.ts).
 */
export const creditEstimates = pgTable(
  'credit_estimates',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    modelTier: text('model_tier', { enum: modelTiers }).notNull(),
    credits: credits('credits').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.modelTier] })],
);

/**
 * Tasks that stopped because a budget was spent (status credits_blocked), so that a top-up, a
 * raised limit or a new period finds them without scanning every task. A row whose task has
 * moved on meanwhile (stopped, marked done) is ignored and swept.
 */
export const creditBlockedTasks = pgTable(
  'credit_blocked_tasks',
  {
    taskId: text('task_id')
      .primaryKey()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    accountId: text('account_id').notNull(),
    userId: text('user_id').notNull(),
    /** The budget that was spent when the task stopped. */
    budgetId: text('budget_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('credit_blocked_tasks_account_user').on(t.accountId, t.userId)],
);

export type CreditBlockedTaskRow = typeof creditBlockedTasks.$inferSelect;

/**
 * Task runs that asked for one of their user's run slots (STEWARD_USER_MAX_CONCURRENT_RUNS) and
 * wait for one. Slots go oldest run first among the runs that wait; a queued run that never asked
 * (its start was lost) holds no place in the line. The row goes when the run starts or ends.
 */
export const runSlotWaits = pgTable(
  'run_slot_waits',
  {
    runId: text('run_id')
      .primaryKey()
      .references(() => taskRuns.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('run_slot_waits_user').on(t.userId)],
);
