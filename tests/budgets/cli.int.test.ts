import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts } from '@/db/schema';
import { admin } from '../helpers/admin-cli';
import { newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/** The admin CLI's budget and limit commands: one JSON line each, the API's checks, errors as JSON. */
const app = useTestServer();
const dbUrl = () => app().database.pool.options.connectionString as string;

describe('admin CLI: budgets and limits', () => {
  it('set-budget creates or changes a scope’s budget, top-up adds credits, budgets lists them', async () => {
    const account = await newAccount(app());
    const user = await newUser(app(), account);

    const whole = await admin(dbUrl(), 'set-budget', '--account', account.accountId, '--credits', '100');
    expect(whole.code, whole.stdout).toBe(0);
    expect(whole.stdout.trim().split('\n')).toHaveLength(1);
    expect(whole.out).toMatchObject({ ok: true, created: true, budget: { scope: 'account', scopeId: account.accountId, period: 'month', limitCredits: 100 } });

    const team = await admin(dbUrl(), 'set-budget', '--account', account.accountId, '--team', user.teamId, '--credits', '20', '--period', 'week', '--member-credits', '5');
    expect(team.out).toMatchObject({ created: true, budget: { scope: 'team', period: 'week', limitCredits: 20, memberLimitCredits: 5 } });

    const mine = await admin(dbUrl(), 'set-budget', '--account', account.accountId, '--user', user.id, '--credits', '3', '--period', 'none');
    expect(mine.out.budget).toMatchObject({ scope: 'user', scopeId: user.id, period: 'none' });
    const changed = await admin(dbUrl(), 'set-budget', '--account', account.accountId, '--user', user.id, '--credits', '4');
    expect(changed.out).toMatchObject({ created: false, budget: { id: mine.out.budget.id, limitCredits: 4, period: 'none' } });

    const topped = await admin(dbUrl(), 'top-up', '--budget', mine.out.budget.id, '--credits', '1.5');
    expect(topped.out.budget.current).toMatchObject({ limitCredits: 5.5, toppedUpCredits: 1.5 });

    const listed = await admin(dbUrl(), 'budgets', '--account', account.accountId);
    expect(listed.out.budgets.map((b: { scope: string }) => b.scope).sort()).toEqual(['account', 'team', 'user']);

    const two = await admin(dbUrl(), 'set-budget', '--account', account.accountId, '--user', user.id, '--team', user.teamId, '--credits', '1');
    expect(two.code).toBe(1);
    expect(two.out).toMatchObject({ ok: false, status: 400 });
    const bad = await admin(dbUrl(), 'set-budget', '--account', account.accountId, '--credits', 'lots');
    expect(bad.out).toMatchObject({ ok: false, status: 400, error: expect.stringContaining('limitCredits') });
    const nobody = await admin(dbUrl(), 'top-up', '--budget', 'ffffffffffffffffffffffff', '--credits', '1');
    expect(nobody.out).toMatchObject({ ok: false, status: 404 });
  }, 120_000);

  it('set-limits sets and removes per-account overrides', async () => {
    const account = await newAccount(app());
    const set = await admin(dbUrl(), 'set-limits', '--account', account.accountId, '--run-max-model-calls', '7', '--user-max-concurrent-runs', '2', '--browsers-per-account', '3');
    expect(set.code, set.stdout).toBe(0);
    expect(set.out).toMatchObject({ ok: true, accountId: account.accountId, overrides: { runMaxModelCalls: 7, userMaxConcurrentRuns: 2, browsersPerAccount: 3 } });
    expect(set.out.limits).toMatchObject({ runMaxModelCalls: 7, runMaxToolCalls: 200, userMaxConcurrentRuns: 2 });

    const back = await admin(dbUrl(), 'set-limits', '--account', account.accountId, '--run-max-model-calls', 'default', '--run-max-tool-calls', '9');
    expect(back.out.overrides).toEqual({ userMaxConcurrentRuns: 2, browsersPerAccount: 3, runMaxToolCalls: 9 });
    const [row] = await app().database.db.select({ limits: accounts.limits }).from(accounts).where(eq(accounts.id, account.accountId));
    expect(row.limits).toEqual({ userMaxConcurrentRuns: 2, browsersPerAccount: 3, runMaxToolCalls: 9 });

    const wrong = await admin(dbUrl(), 'set-limits', '--account', account.accountId, '--task-tree-max', '0');
    expect(wrong.out).toMatchObject({ ok: false, status: 400, error: expect.stringContaining('--task-tree-max') });
  }, 60_000);
});
