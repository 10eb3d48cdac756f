import { z } from 'zod';
import { budgetPeriods, budgetScopes } from '@/db/schema';
import { PageFields, PageQuery } from '@/server/http/pagination';

export const BudgetScope = z.enum(budgetScopes).describe('What the budget covers: the whole account, an organization, a team, or one user');
export const BudgetPeriod = z
  .enum(budgetPeriods)
  .describe('`day`, `week` (from Monday) or `month`, in UTC: the limit applies per period and spend starts again at 0; `none`: a balance that only top-ups raise');

const MAX_CREDITS = 1e12;
const credits = () =>
  z
    .number()
    .nonnegative()
    .max(MAX_CREDITS)
    .refine((n) => Math.abs(Math.round(n * 1e6) - n * 1e6) < 1e-6, { message: 'at most six decimals' });

const Thresholds = z
  .array(z.number().int().min(1).max(1000))
  .min(1)
  .max(10)
  .refine((a) => new Set(a).size === a.length, { message: 'each threshold once' })
  .describe('Percentages of the limit at which the webhook event `budget.threshold_reached` is sent, once per period each (default 50, 80, 100)');

export const CreateBudgetBody = z.object({
  scope: BudgetScope,
  scopeId: z.string().min(1).max(64).optional().describe('The organization, team or user id; for `account`, omitted or the account id'),
  period: BudgetPeriod.default('month'),
  limitCredits: credits().describe('Credits the scope may spend per period (for `none`: the starting balance)'),
  memberLimitCredits: credits()
    .nullable()
    .optional()
    .describe("Team budgets only: each member's share per period, multiplied by the member's team `multiplier` (1 when unset)"),
  alertThresholds: Thresholds.optional(),
});

export const UpdateBudgetBody = z
  .object({
    period: BudgetPeriod.optional(),
    limitCredits: credits().optional(),
    memberLimitCredits: credits().nullable().optional(),
    alertThresholds: Thresholds.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Give at least one of period, limitCredits, memberLimitCredits, alertThresholds' });

export const TopUpBody = z.object({
  credits: credits()
    .refine((n) => n > 0, { message: 'must be more than 0' })
    .describe('Credits added to the current period (for `none`: to the balance, for good)'),
});

export const BudgetParams = z.object({ budgetId: z.string().min(1).max(64) });

export const BudgetListQuery = PageQuery.extend({
  scope: BudgetScope.optional(),
  scopeId: z.string().min(1).max(64).optional(),
});

export const BudgetPeriodFigures = z.object({
  periodStart: z.string().describe('When the current period began (the Unix epoch for `none`)'),
  periodEnd: z.string().nullable().describe('When it ends; null for `none`'),
  limitCredits: z.number().describe("This period's limit: the budget's limit plus this period's top-ups"),
  toppedUpCredits: z.number(),
  spentCredits: z.number().describe('Settled cost of the model calls made in this period'),
  reservedCredits: z.number().describe('Held for model calls in flight'),
  remainingCredits: z.number().describe('limit − spent − reserved, never below 0'),
  alerted: z.array(z.number().int()).describe('Thresholds already announced in this period'),
});

export const Budget = z.object({
  id: z.string(),
  scope: BudgetScope,
  scopeId: z.string(),
  period: BudgetPeriod,
  limitCredits: z.number(),
  memberLimitCredits: z.number().nullable(),
  alertThresholds: z.array(z.number().int()),
  current: BudgetPeriodFigures,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const BudgetEnvelope = z.object({ ok: z.literal(true), budget: Budget });
export const BudgetList = z.object({ ok: z.literal(true), budgets: z.array(Budget), ...PageFields });
export const DeletedBudget = z.object({ ok: z.literal(true), budget: z.object({ id: z.string(), deleted: z.literal(true) }) });

export const CoveringBudget = BudgetPeriodFigures.extend({
  budgetId: z.string(),
  scope: BudgetScope,
  scopeId: z.string(),
  period: BudgetPeriod,
  memberShare: z.boolean().describe("True for the user's own share of a team budget"),
});

export const CreditsView = z.object({
  ok: z.literal(true),
  credits: z.object({
    userId: z.string(),
    budgets: z.array(CoveringBudget).describe('Every budget covering the user (and their share of a team budget), with this period’s figures'),
    remainingCredits: z.number().nullable().describe('The least any of them has left; null when no budget covers the user'),
    blocked: z.boolean().describe('True when a covering budget is spent: model calls of the user wait for credits'),
  }),
});
