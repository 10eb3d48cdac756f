import { z } from 'zod';
import { accountLimits, setAccountLimits } from '@/server/accounts/limits';
import { setRateLimits } from '@/server/accounts/service';
import { BudgetListQuery, CreateBudgetBody, TopUpBody, UpdateBudgetBody } from '@/server/budgets/contracts';
import { createBudget, deleteBudget, listBudgets, topUpBudget, updateBudget } from '@/server/budgets/service';
import { scopeNames, userIdByEmail } from '@/server/console/directory';
import { Email } from '@/server/user-record/contracts';
import { router } from '../init';
import { consoleChange, consoleProcedure } from './console-procedures';

/** A limit: a positive integer, or null for the deployment's default. */
const Limit = z.number().int().min(1).max(1_000_000).nullable().optional();
const LimitsBody = z
  .object({ runMaxModelCalls: Limit, runMaxToolCalls: Limit, taskTreeMax: Limit, userMaxConcurrentRuns: Limit, browsersPerAccount: Limit })
  .strict();
const RateLimitsBody = z.object({ reads: z.number().int().min(1).max(1_000_000).nullable(), writes: z.number().int().min(1).max(1_000_000).nullable() });
const Budget = z.object({ budgetId: z.string().min(1).max(64) });

/**
 * Limits and budgets (spec 5, Limits; credit budgets): the account's limit overrides (admin CLI
 * `set-limits`), its API rate limits (`set-rate-limits`), and credit budgets through the
 * /budgets API's services (`set-budget`, `top-up`, `budgets` in the CLI). A user budget may be
 * named by the person's email.
 */
export const consoleLimitsRouter = router({
  limits: consoleProcedure.query(({ ctx }) => accountLimits(ctx.db, ctx.actor.accountId, ctx.actor)),
  setLimits: consoleChange.input(LimitsBody).mutation(({ ctx, input }) => setAccountLimits(ctx.db, ctx.actor.accountId, input, ctx.actor)),
  setRateLimits: consoleChange.input(RateLimitsBody).mutation(({ ctx, input }) => setRateLimits(ctx.db, ctx.actor.accountId, input, ctx.actor)),

  budgets: consoleProcedure.input(BudgetListQuery.prefault({})).query(async ({ ctx, input }) => {
    const page = await listBudgets(ctx.db, ctx.actor, input);
    return { ...page, names: await scopeNames(ctx.db, ctx.actor.accountId, page.budgets) };
  }),
  createBudget: consoleChange.input(CreateBudgetBody.extend({ userEmail: Email.optional() })).mutation(async ({ ctx, input }) => {
    const { userEmail, ...body } = input;
    const scopeId = body.scope === 'user' && userEmail ? await userIdByEmail(ctx.db, ctx.actor.accountId, userEmail) : body.scopeId;
    return createBudget(ctx.db, ctx.actor, { ...body, scopeId });
  }),
  updateBudget: consoleChange.input(Budget.extend({ patch: UpdateBudgetBody })).mutation(({ ctx, input }) => updateBudget(ctx.db, ctx.actor, input.budgetId, input.patch)),
  topUp: consoleChange.input(Budget.extend({ credits: TopUpBody.shape.credits })).mutation(({ ctx, input }) => topUpBudget(ctx.db, ctx.actor, input.budgetId, { credits: input.credits })),
  deleteBudget: consoleChange.input(Budget).mutation(({ ctx, input }) => deleteBudget(ctx.db, ctx.actor, input.budgetId)),
});
