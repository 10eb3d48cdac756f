import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { creditBudgetUsage, creditEstimates, creditReservations, teamMemberships, webhookDeliveries } from '@/db/schema';
import { insertBudget, addCredits } from '@/server/budgets/service';
import { releaseCall, reserveCall, settleCall, type CallRef } from '@/server/budgets/reserve';
import { sweepBudgets } from '@/server/budgets/sweep';
import { periodEnd, periodStart } from '@/server/budgets/periods';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * The reservation rule itself (server/budgets/reserve.ts), against real PostgreSQL: many calls
 * racing one budget overshoot it by at most one call; a retried call reserves once; member
 * shares, top-ups, periods and the sweep; thresholds announced once each. The run and chat paths
 * that use it are tested in budget-runs.int.test.ts.
 */
const app = useTestServer();
const db = () => app().database.db;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setUp() {
  const account = await newAccount(app());
  const user = await newUser(app(), account);
  return { account, user };
}

/** One caller making model calls that cost `cost()` each until a budget refuses: what it spent and how many calls it made. */
async function caller(ref: (n: number) => CallRef, cost: () => number, counts: { calls: number; spent: number; busy: number }) {
  for (let n = 0; ; n++) {
    const r = await reserveCall(db(), ref(n));
    if (r.kind === 'exhausted') return;
    if (r.kind === 'busy') {
      counts.busy++;
      n--;
      await sleep(5 + Math.random() * 10);
      continue;
    }
    // The call is in flight: others race meanwhile.
    await sleep(Math.random() * 15);
    const credits = cost();
    counts.calls++;
    counts.spent += credits;
    await db().transaction((tx) => settleCall(tx, ref(n).ref, 'medium', credits));
  }
}

const usageOf = async (budgetId: string, memberUserId = '') =>
  (await db().select().from(creditBudgetUsage).where(and(eq(creditBudgetUsage.budgetId, budgetId), eq(creditBudgetUsage.memberUserId, memberUserId))))[0];

describe('reserving against a budget', () => {
  it('50 callers racing one budget exceed it by at most one call, and use it up', async () => {
    const { account, user } = await setUp();
    const budget = await insertBudget(db(), account.accountId, { scope: 'account', scopeId: account.accountId, period: 'month', limitCredits: 40.5 });
    const counts = { calls: 0, spent: 0, busy: 0 };
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => caller((n) => ({ accountId: account.accountId, userId: user.id, tier: 'medium', ref: `test:${i}:${n}` }), () => 1, counts)),
    );
    expect(counts.spent).toBeGreaterThanOrEqual(40.5);
    expect(counts.spent).toBeLessThanOrEqual(40.5 + 1);
    const usage = await usageOf(budget.id);
    expect(usage).toMatchObject({ spent: counts.spent, reserved: 0 });
    // The first call's cost was unknown: it ran alone and the others waited.
    expect(counts.busy).toBeGreaterThan(0);
  });

  it("two calls that together do not fit, racing a budget's first call of its period (no usage row yet): exactly one holds", async () => {
    const { account } = await setUp();
    // Each call is known to cost up to 6; the budget has room for one.
    await db().insert(creditEstimates).values({ accountId: account.accountId, modelTier: 'medium', credits: 6 });
    for (let round = 0; round < 5; round++) {
      const user = await newUser(app(), account);
      const budget = await insertBudget(db(), account.accountId, { scope: 'user', scopeId: user.id, period: 'week', limitCredits: 10 });
      const ref = (r: string): CallRef => ({ accountId: account.accountId, userId: user.id, tier: 'medium', ref: `${r}:${round}` });
      const answers = await Promise.all([reserveCall(db(), ref('a')), reserveCall(db(), ref('b'))]);
      expect(answers.map((a) => a.kind).sort()).toEqual(['busy', 'reserved']);
      expect(await usageOf(budget.id)).toMatchObject({ spent: 0, reserved: 6 });
    }
  });

  it('calls of different costs (none above the largest seen) still overshoot by at most one call', async () => {
    const { account, user } = await setUp();
    const budget = await insertBudget(db(), account.accountId, { scope: 'user', scopeId: user.id, period: 'day', limitCredits: 30 });
    // The estimate is known from the start: the most expensive call was seen before.
    await reserveCall(db(), { accountId: account.accountId, userId: user.id, tier: 'medium', ref: 'seed' });
    await db().transaction((tx) => settleCall(tx, 'seed', 'medium', 2));
    const counts = { calls: 0, spent: 0, busy: 0 };
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        caller((n) => ({ accountId: account.accountId, userId: user.id, tier: 'medium', ref: `mixed:${i}:${n}` }), () => [0.5, 1, 2][Math.floor(Math.random() * 3)], counts),
      ),
    );
    const usage = await usageOf(budget.id);
    expect(usage.spent).toBeLessThanOrEqual(30 + 2);
    expect(usage.spent).toBeGreaterThanOrEqual(30);
    expect(usage.reserved).toBe(0);
  });

  it('a retried call reserves once; a released one holds nothing; a settled one is charged once', async () => {
    const { account, user } = await setUp();
    const budget = await insertBudget(db(), account.accountId, { scope: 'user', scopeId: user.id, period: 'none', limitCredits: 10 });
    const ref: CallRef = { accountId: account.accountId, userId: user.id, tier: 'low', ref: 'retried' };
    // Unknown cost: it holds the whole budget, so the next call waits for its settlement.
    expect(await reserveCall(db(), ref)).toEqual({ kind: 'reserved', ref: 'retried', farFromLimit: false });
    expect(await reserveCall(db(), ref)).toEqual({ kind: 'reserved', ref: 'retried', farFromLimit: false });
    // Unknown cost: the call holds what is left.
    expect(await usageOf(budget.id)).toMatchObject({ reserved: 10, spent: 0 });
    await db().transaction((tx) => releaseCall(tx, 'retried'));
    expect(await usageOf(budget.id)).toMatchObject({ reserved: 0, spent: 0 });
    expect(await reserveCall(db(), ref)).toMatchObject({ kind: 'reserved' });
    await db().transaction((tx) => settleCall(tx, 'retried', 'low', 3));
    await db().transaction((tx) => settleCall(tx, 'retried', 'low', 3));
    expect(await usageOf(budget.id)).toMatchObject({ reserved: 0, spent: 3 });
    const rows = await db().select().from(creditReservations).where(eq(creditReservations.ref, 'retried'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'settled', settledCredits: 3 });
    // Now known: the next call holds the largest cost seen, not the rest of the budget.
    await reserveCall(db(), { ...ref, ref: 'next' });
    expect(await usageOf(budget.id)).toMatchObject({ reserved: 3 });
  });

  it('a reservation says whether its budgets keep room for a hundred more calls like it after it (its settlement may then wait)', async () => {
    const { account, user } = await setUp();
    await db().insert(creditEstimates).values({ accountId: account.accountId, modelTier: 'medium', credits: 1 });
    const accountBudget = await insertBudget(db(), account.accountId, { scope: 'account', scopeId: account.accountId, period: 'month', limitCredits: 1000 });
    const ref = (r: string): CallRef => ({ accountId: account.accountId, userId: user.id, tier: 'medium', ref: r });
    expect(await reserveCall(db(), ref('far'))).toEqual({ kind: 'reserved', ref: 'far', farFromLimit: true });
    // The tightest budget decides: the user's own leaves room for fewer than a hundred more.
    await insertBudget(db(), account.accountId, { scope: 'user', scopeId: user.id, period: 'month', limitCredits: 100 });
    expect(await reserveCall(db(), ref('near'))).toEqual({ kind: 'reserved', ref: 'near', farFromLimit: false });
    expect(await usageOf(accountBudget.id)).toMatchObject({ reserved: 2 });
  });

  it('no budget: nothing is held; a spent budget names itself; a top-up gives room again', async () => {
    const { account, user } = await setUp();
    const ref = (r: string): CallRef => ({ accountId: account.accountId, userId: user.id, tier: 'medium', ref: r });
    expect(await reserveCall(db(), ref('free'))).toEqual({ kind: 'none' });
    const budget = await insertBudget(db(), account.accountId, { scope: 'user', scopeId: user.id, period: 'month', limitCredits: 1 });
    expect(await reserveCall(db(), ref('a'))).toMatchObject({ kind: 'reserved' });
    expect(await reserveCall(db(), ref('b'))).toEqual({ kind: 'busy' });
    await db().transaction((tx) => settleCall(tx, 'a', 'medium', 1));
    expect(await reserveCall(db(), ref('b'))).toEqual({
      kind: 'exhausted',
      budget: { budgetId: budget.id, scope: 'user', scopeId: user.id, period: 'month', memberUserId: null, spentCredits: 1, limitCredits: 1 },
    });
    await db().transaction((tx) => addCredits(tx, budget, 2));
    expect(await reserveCall(db(), ref('b'))).toMatchObject({ kind: 'reserved' });
  });

  it("a team budget gives each member a share times their multiplier; the team's whole limit holds too", async () => {
    const { account, user } = await setUp();
    const mate = await newUser(app(), account, { teamId: user.teamId });
    await db().update(teamMemberships).set({ multiplier: 2 }).where(and(eq(teamMemberships.teamId, user.teamId), eq(teamMemberships.userId, mate.id)));
    const budget = await insertBudget(db(), account.accountId, { scope: 'team', scopeId: user.teamId, period: 'week', limitCredits: 100, memberLimitCredits: 1.5 });
    const spend = async (userId: string) => {
      let n = 0;
      for (;;) {
        const r = await reserveCall(db(), { accountId: account.accountId, userId, tier: 'medium', ref: `${userId}:${n}` });
        if (r.kind !== 'reserved') return { calls: n, refused: r };
        await db().transaction((tx) => settleCall(tx, `${userId}:${n}`, 'medium', 0.5));
        n++;
      }
    };
    const one = await spend(user.id);
    expect(one.calls).toBe(3);
    expect(one.refused).toMatchObject({ kind: 'exhausted', budget: { budgetId: budget.id, memberUserId: user.id, limitCredits: 1.5 } });
    const two = await spend(mate.id);
    expect(two.calls).toBe(6);
    expect((await usageOf(budget.id)).spent).toBe(4.5);
  });

  it('periods are UTC days, ISO weeks and months; a new period starts from 0', async () => {
    const at = new Date('2025-03-05T13:14:15Z'); // a Wednesday
    expect(periodStart('day', at).toISOString()).toBe('2025-03-05T00:00:00.000Z');
    expect(periodStart('week', at).toISOString()).toBe('2025-03-03T00:00:00.000Z');
    expect(periodEnd('week', at)!.toISOString()).toBe('2025-03-10T00:00:00.000Z');
    expect(periodStart('week', new Date('2025-03-09T23:59:59Z')).toISOString()).toBe('2025-03-03T00:00:00.000Z');
    expect(periodStart('month', at).toISOString()).toBe('2025-03-01T00:00:00.000Z');
    expect(periodEnd('month', new Date('2025-12-31T23:00:00Z'))!.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(periodStart('none', at).getTime()).toBe(0);
    expect(periodEnd('none', at)).toBeNull();

    const { account, user } = await setUp();
    await insertBudget(db(), account.accountId, { scope: 'account', scopeId: account.accountId, period: 'day', limitCredits: 1 });
    const ref = (r: string): CallRef => ({ accountId: account.accountId, userId: user.id, tier: 'medium', ref: r });
    const today = new Date();
    await reserveCall(db(), ref('today'), today);
    await db().transaction((tx) => settleCall(tx, 'today', 'medium', 1));
    expect(await reserveCall(db(), ref('again'), today)).toMatchObject({ kind: 'exhausted' });
    expect(await reserveCall(db(), ref('tomorrow'), new Date(today.getTime() + 86_400_000))).toMatchObject({ kind: 'reserved' });
  });

  it('the sweep releases reservations a crash left held', async () => {
    const { account, user } = await setUp();
    const budget = await insertBudget(db(), account.accountId, { scope: 'user', scopeId: user.id, period: 'month', limitCredits: 5 });
    await reserveCall(db(), { accountId: account.accountId, userId: user.id, tier: 'medium', ref: 'crashed' }, new Date(Date.now() - 60 * 60_000));
    expect((await usageOf(budget.id)).reserved).toBe(5);
    const swept = await sweepBudgets(db());
    expect(swept.released).toBeGreaterThanOrEqual(1);
    expect((await usageOf(budget.id)).reserved).toBe(0);
    // The call finished after all: what it spent is charged anyway.
    await db().transaction((tx) => settleCall(tx, 'crashed', 'medium', 2));
    expect(await usageOf(budget.id)).toMatchObject({ spent: 2, reserved: 0 });
  });
});

describe('alerts', () => {
  it('each threshold (50, 80, 100 %) is announced once per period, however many calls cross it together', async () => {
    const { account, user } = await setUp();
    const hook = await call(app(), '/webhooks', { key: account.key, body: { url: 'https://93.184.215.14/hooks' } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const budget = await insertBudget(db(), account.accountId, { scope: 'account', scopeId: account.accountId, period: 'month', limitCredits: 10 });
    const counts = { calls: 0, spent: 0, busy: 0 };
    await Promise.all(Array.from({ length: 12 }, (_, i) => caller((n) => ({ accountId: account.accountId, userId: user.id, tier: 'medium', ref: `alert:${i}:${n}` }), () => 1, counts)));
    const sent = await db().select().from(webhookDeliveries).where(and(eq(webhookDeliveries.accountId, account.accountId), eq(webhookDeliveries.eventType, 'budget.threshold_reached')));
    const data = sent.map((d) => (d.payload as { data: Record<string, unknown> }).data).sort((a, b) => (a.threshold as number) - (b.threshold as number));
    expect(data.map((d) => d.threshold)).toEqual([50, 80, 100]);
    expect(data[0]).toMatchObject({
      budgetId: budget.id,
      scope: 'account',
      scopeId: account.accountId,
      period: 'month',
      periodStart: periodStart('month', new Date()).toISOString(),
      limitCredits: 10,
    });
    expect(data[0].spentCredits as number).toBeGreaterThanOrEqual(5);
    expect(data[2].spentCredits as number).toBeGreaterThanOrEqual(10);
    expect((await usageOf(budget.id)).alerted.sort((a, b) => a - b)).toEqual([50, 80, 100]);
  });
});
