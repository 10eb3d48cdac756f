import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { accounts, creditBudgets, type BudgetScope } from '@/db/schema';
import { invalidFields, notFound } from '@/server/http/errors';
import { parseOrThrow } from '@/server/http/validate';
import { scopeOrganization } from './access';
import { BudgetPeriod, CreateBudgetBody, TopUpBody } from './contracts';
import { addCredits, changeBudget, insertBudget, presentBudgets } from './service';

/*
 * The admin CLI's budget commands (scripts/admin.ts), with the API's checks: the console's jobs
 * until the hosted console has a page for them. Each answers one JSON object.
 */

type Args = Record<string, string | undefined>;

const number = (v: string | undefined) => (v === undefined ? undefined : v.trim() === '' ? NaN : Number(v));

async function accountOf(db: Db, id: string | undefined): Promise<string> {
  const [account] = id ? await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, id)) : [];
  if (!account) throw notFound('Account');
  return account.id;
}

/** The scope the flags name: at most one of --organization, --team, --user; none is the account itself. */
function scopeOf(args: Args, accountId: string) {
  const given = (['organization', 'team', 'user'] as const).filter((s) => args[s] !== undefined);
  if (given.length > 1) throw invalidFields(given.map((s) => ({ field: `--${s}`, problem: 'give at most one of --organization, --team, --user' })));
  const named = given[0];
  return named ? { scope: named as BudgetScope, scopeId: args[named]! } : { scope: 'account' as BudgetScope, scopeId: accountId };
}

/**
 * `set-budget --account ID [--organization ID | --team ID | --user ID] --credits N [--period P]
 * [--member-credits N]`: the scope's budget is created, or its limit (and the period and member
 * share, when given) changed; blocked tasks resume when that gives room.
 */
export async function setBudgetFromCli(db: Db, args: Args) {
  const accountId = await accountOf(db, args.account);
  const { scope, scopeId } = scopeOf(args, accountId);
  const input = parseOrThrow(
    CreateBudgetBody.extend({ period: BudgetPeriod.optional() }),
    { scope, scopeId, limitCredits: number(args.credits), period: args.period, memberLimitCredits: number(args['member-credits']) },
    'options',
  );
  return db.transaction(async (tx) => {
    if ((await scopeOrganization(tx, accountId, scope, scopeId)) === undefined) throw notFound(scope[0].toUpperCase() + scope.slice(1));
    const [existing] = await tx
      .select()
      .from(creditBudgets)
      .where(and(eq(creditBudgets.accountId, accountId), eq(creditBudgets.scope, scope), eq(creditBudgets.scopeId, scopeId)))
      .for('update');
    const changes = {
      limitCredits: input.limitCredits,
      ...(input.period ? { period: input.period } : {}),
      ...(input.memberLimitCredits !== undefined ? { memberLimitCredits: input.memberLimitCredits } : {}),
    };
    const row = existing ? await changeBudget(tx, existing, changes) : await insertBudget(tx, accountId, { scope, scopeId, period: 'month', ...changes });
    const [budget] = await presentBudgets(tx, [row]);
    return { ok: true as const, created: !existing, budget };
  });
}

/** `top-up --budget ID --credits N`. */
export async function topUpFromCli(db: Db, args: Args) {
  const { credits } = parseOrThrow(TopUpBody, { credits: number(args.credits) }, 'options');
  return db.transaction(async (tx) => {
    const [budget] = args.budget ? await tx.select().from(creditBudgets).where(eq(creditBudgets.id, args.budget)) : [];
    if (!budget) throw notFound('Budget');
    await addCredits(tx, budget, credits);
    const [presented] = await presentBudgets(tx, [budget]);
    return { ok: true as const, budget: presented };
  });
}

/** `budgets --account ID`: every budget of the account, newest first, with this period's figures. */
export async function listBudgetsFromCli(db: Db, args: Args) {
  const accountId = await accountOf(db, args.account);
  const rows = await db.select().from(creditBudgets).where(eq(creditBudgets.accountId, accountId)).orderBy(desc(creditBudgets.createdAt), desc(creditBudgets.id));
  return { ok: true as const, budgets: await presentBudgets(db, rows) };
}
