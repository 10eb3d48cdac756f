import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { teams } from '@/db/schema';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * The budgets API: account keys manage every budget of the account, an organization admin its
 * organization's (and its teams' and users'), a user reads the budgets that cover them; another
 * account's budget is 404; bad input is 400 naming each field; every answer carries the current
 * period's figures.
 */
const app = useTestServer();

async function organizationWithAdmin(account: AccountFixture) {
  const org = await call(app(), '/organizations', { key: account.key, body: { name: `Org ${Math.random().toString(36).slice(2, 7)}` } });
  expect(org.status, JSON.stringify(org.body)).toBe(201);
  const orgId = org.body.organization.id as string;
  const admin = await newUser(app(), account);
  const made = await call(app(), `/users/${admin.id}`, { key: account.key, method: 'PUT', body: { organization: orgId, organizationRole: 'admin' } });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  const member = await newUser(app(), account);
  await call(app(), `/users/${member.id}`, { key: account.key, method: 'PUT', body: { organization: orgId, organizationRole: 'member' } });
  await app().database.db.update(teams).set({ organizationId: orgId }).where(eq(teams.id, member.teamId));
  return { orgId, admin: { ...admin, key: await userKey(app(), account, admin.id) }, member: { ...member, key: await userKey(app(), account, member.id) } };
}

const create = (key: string, body: unknown) => call(app(), '/budgets', { key, body });

describe('with an account key', () => {
  it('creates, lists, reads, changes, tops up and deletes budgets, each answer with the current period', async () => {
    const account = await newAccount(app());
    const user = await newUser(app(), account);

    const whole = await create(account.key, { scope: 'account', limitCredits: 100 });
    expect(whole.status, JSON.stringify(whole.body)).toBe(201);
    expect(whole.body.budget).toMatchObject({
      scope: 'account',
      scopeId: account.accountId,
      period: 'month',
      limitCredits: 100,
      memberLimitCredits: null,
      alertThresholds: [50, 80, 100],
      current: { limitCredits: 100, spentCredits: 0, reservedCredits: 0, remainingCredits: 100, toppedUpCredits: 0, alerted: [] },
    });
    expect(new Date(whole.body.budget.current.periodStart).getUTCDate()).toBe(1);
    expect(whole.body.budget.current.periodEnd).not.toBeNull();

    const mine = await create(account.key, { scope: 'user', scopeId: user.id, period: 'none', limitCredits: 5, alertThresholds: [90] });
    expect(mine.status, JSON.stringify(mine.body)).toBe(201);
    expect(mine.body.budget.current).toMatchObject({ periodStart: new Date(0).toISOString(), periodEnd: null });
    const team = await create(account.key, { scope: 'team', scopeId: user.teamId, period: 'week', limitCredits: 50, memberLimitCredits: 10 });
    expect(team.status, JSON.stringify(team.body)).toBe(201);

    const dup = await create(account.key, { scope: 'user', scopeId: user.id, limitCredits: 9 });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ error_code: 'budget_exists', budgetId: mine.body.budget.id });

    const all = await call(app(), '/budgets', { key: account.key });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    const users = await call(app(), `/budgets?scope=user&scopeId=${user.id}`, { key: account.key });
    expect(users.body.budgets.map((b: { id: string }) => b.id)).toEqual([mine.body.budget.id]);

    const id = mine.body.budget.id as string;
    const patched = await call(app(), `/budgets/${id}`, { method: 'PATCH', key: account.key, body: { limitCredits: 7.25, alertThresholds: [50, 100] } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.budget).toMatchObject({ limitCredits: 7.25, alertThresholds: [50, 100], current: { limitCredits: 7.25, remainingCredits: 7.25 } });
    const topped = await call(app(), `/budgets/${id}/top-up`, { key: account.key, body: { credits: 2.5 } });
    expect(topped.status, JSON.stringify(topped.body)).toBe(200);
    expect(topped.body.budget.current).toMatchObject({ limitCredits: 9.75, toppedUpCredits: 2.5, remainingCredits: 9.75 });
    expect((await call(app(), `/budgets/${id}`, { key: account.key })).body.budget.current.limitCredits).toBe(9.75);

    const removed = await call(app(), `/budgets/${id}`, { method: 'DELETE', key: account.key });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ ok: true, budget: { id, deleted: true } });
    expect((await call(app(), `/budgets/${id}`, { key: account.key })).status).toBe(404);
  });

  it("another account's budget is 404 everywhere, and its users and teams cannot be named", async () => {
    const mine = await newAccount(app());
    const theirs = await newAccount(app());
    const theirUser = await newUser(app(), theirs);
    const budget = (await create(theirs.key, { scope: 'user', scopeId: theirUser.id, limitCredits: 1 })).body.budget;
    for (const [method, path, body] of [
      ['GET', `/budgets/${budget.id}`, undefined],
      ['PATCH', `/budgets/${budget.id}`, { limitCredits: 2 }],
      ['DELETE', `/budgets/${budget.id}`, undefined],
      ['POST', `/budgets/${budget.id}/top-up`, { credits: 1 }],
    ] as const) {
      const res = await call(app(), path, { method, key: mine.key, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
    }
    expect((await call(app(), '/budgets', { key: mine.key })).body.total).toBe(0);
    expect((await create(mine.key, { scope: 'user', scopeId: theirUser.id, limitCredits: 1 })).status).toBe(404);
    expect((await create(mine.key, { scope: 'team', scopeId: theirUser.teamId, limitCredits: 1 })).status).toBe(404);
    expect((await call(app(), `/budgets/${budget.id}`, { key: theirs.key })).body.budget.limitCredits).toBe(1);
  });

  it('bad input is 400 naming each field', async () => {
    const account = await newAccount(app());
    const user = await newUser(app(), account);
    const bad = await create(account.key, { scope: 'galaxy', limitCredits: -1, period: 'year', alertThresholds: [50, 50] });
    expect(bad.status).toBe(400);
    for (const field of ['scope', 'limitCredits', 'period', 'alertThresholds']) expect(bad.body.error).toContain(field);
    const share = await create(account.key, { scope: 'user', scopeId: user.id, limitCredits: 1, memberLimitCredits: 1 });
    expect(share.status).toBe(400);
    expect(share.body.error).toContain('memberLimitCredits');
    const noId = await create(account.key, { scope: 'team', limitCredits: 1 });
    expect(noId.status).toBe(400);
    expect(noId.body.error).toContain('scopeId');
    const decimals = await create(account.key, { scope: 'account', limitCredits: 1.1234567 });
    expect(decimals.status).toBe(400);
    expect(decimals.body.error).toContain('limitCredits');
    const otherAccount = await create(account.key, { scope: 'account', scopeId: 'ffffffffffffffffffffffff', limitCredits: 1 });
    expect(otherAccount.status).toBe(400);
    const budget = (await create(account.key, { scope: 'user', scopeId: user.id, limitCredits: 1 })).body.budget;
    const empty = await call(app(), `/budgets/${budget.id}`, { method: 'PATCH', key: account.key, body: {} });
    expect(empty.status).toBe(400);
    const zero = await call(app(), `/budgets/${budget.id}/top-up`, { key: account.key, body: { credits: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.body.error).toContain('credits');
  });
});

describe('an organization admin', () => {
  it("manages the organization's budget and those of its teams and users, and nothing else", async () => {
    const account = await newAccount(app());
    const { orgId, admin, member } = await organizationWithAdmin(account);
    const other = await organizationWithAdmin(account);
    const outsider = await newUser(app(), account);

    const org = await create(admin.key, { scope: 'organization', scopeId: orgId, limitCredits: 30 });
    expect(org.status, JSON.stringify(org.body)).toBe(201);
    expect((await create(admin.key, { scope: 'team', scopeId: member.teamId, limitCredits: 10 })).status).toBe(201);
    const person = await create(admin.key, { scope: 'user', scopeId: member.id, limitCredits: 3 });
    expect(person.status).toBe(201);

    expect((await create(admin.key, { scope: 'account', limitCredits: 1 })).status).toBe(403);
    expect((await create(admin.key, { scope: 'organization', scopeId: other.orgId, limitCredits: 1 })).status).toBe(404);
    expect((await create(admin.key, { scope: 'user', scopeId: outsider.id, limitCredits: 1 })).status).toBe(404);
    expect((await create(admin.key, { scope: 'user', scopeId: other.member.id, limitCredits: 1 })).status).toBe(404);

    const theirs = (await create(account.key, { scope: 'organization', scopeId: other.orgId, limitCredits: 1 })).body.budget;
    expect((await call(app(), `/budgets/${theirs.id}`, { key: admin.key })).status).toBe(404);
    expect((await call(app(), `/budgets/${theirs.id}`, { method: 'PATCH', key: admin.key, body: { limitCredits: 100 } })).status).toBe(404);
    expect((await call(app(), `/budgets/${theirs.id}/top-up`, { key: admin.key, body: { credits: 100 } })).status).toBe(404);

    const listed = await call(app(), '/budgets', { key: admin.key });
    expect(listed.body.budgets.map((b: { scopeId: string }) => b.scopeId).sort()).toEqual([orgId, member.teamId, member.id].sort());
    expect((await call(app(), `/budgets/${person.body.budget.id}/top-up`, { key: admin.key, body: { credits: 1 } })).status).toBe(200);
    expect((await call(app(), `/budgets/${org.body.budget.id}`, { method: 'DELETE', key: admin.key })).status).toBe(200);
  });
});

describe('a user', () => {
  it('reads the budgets covering them (GET /credits, GET /budgets/{id}) and changes none', async () => {
    const account = await newAccount(app());
    const { orgId, member } = await organizationWithAdmin(account);
    const stranger = await newUser(app(), account);
    const whole = (await create(account.key, { scope: 'account', limitCredits: 100 })).body.budget;
    const org = (await create(account.key, { scope: 'organization', scopeId: orgId, limitCredits: 40 })).body.budget;
    const team = (await create(account.key, { scope: 'team', scopeId: member.teamId, limitCredits: 20, memberLimitCredits: 4 })).body.budget;
    const own = (await create(account.key, { scope: 'user', scopeId: member.id, period: 'day', limitCredits: 2 })).body.budget;
    const strangers = (await create(account.key, { scope: 'user', scopeId: stranger.id, limitCredits: 2 })).body.budget;

    const credits = await call(app(), '/credits', { key: member.key });
    expect(credits.status, JSON.stringify(credits.body)).toBe(200);
    const seen = credits.body.credits.budgets.map((b: { budgetId: string; memberShare: boolean; limitCredits: number }) => [b.budgetId, b.memberShare, b.limitCredits]);
    expect(seen.sort()).toEqual(
      [
        [whole.id, false, 100],
        [org.id, false, 40],
        [team.id, false, 20],
        [team.id, true, 4],
        [own.id, false, 2],
      ].sort(),
    );
    expect(credits.body.credits).toMatchObject({ userId: member.id, remainingCredits: 2, blocked: false });

    expect((await call(app(), `/budgets/${team.id}`, { key: member.key })).status).toBe(200);
    expect((await call(app(), `/budgets/${strangers.id}`, { key: member.key })).status).toBe(404);
    const refused = await call(app(), `/budgets/${own.id}/top-up`, { key: member.key, body: { credits: 10 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error_code).toBe('budget_admin_required');
    expect((await call(app(), `/budgets/${own.id}`, { method: 'PATCH', key: member.key, body: { limitCredits: 10 } })).status).toBe(403);
    expect((await create(member.key, { scope: 'user', scopeId: member.id, limitCredits: 1000 })).status).toBe(403);
    expect((await call(app(), '/budgets', { key: member.key })).body.total).toBe(4);
    // GET /credits is a user's: an account key without X-User-Email has nobody to answer for.
    expect((await call(app(), '/credits', { key: account.key })).status).toBe(401);
  });
});
