import { sql } from 'drizzle-orm';
import { index, integer, jsonb, numeric, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts, updatedAt } from './columns';

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
