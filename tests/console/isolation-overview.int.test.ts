import { generateKeyPairSync } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accountCertificates, creditBudgets, phoneLineRequests, taskRuns, webhookEndpoints } from '@/db/schema';
import { auditCsv } from '@/server/console/audit-export';
import { recordModelCall } from '@/server/tasks/usage';
import { call, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { codeOf, consoleWorld } from './console-helpers';

/*
 * The console shows one account, and only its members' own: another account's resources are
 * NOT_FOUND by every procedure (nothing changes there), its data never appears in a list, and a
 * member's session means nothing on another account's domain. The overview counts what the
 * account holds; the audit log filters, pages and exports.
 */

process.env.STEWARD_WEBHOOK_ALLOW_PRIVATE = '127.0.0.0/8';
const app = useTestServer();
const w = consoleWorld(app);

describe('another account', () => {
  it('is NOT_FOUND for every change by id, its data never listed, and a session does not cross domains', async () => {
    const mine = await w.hostedAccount('Mine co');
    const dev = await w.member(mine, 'developer');
    const theirs = await w.hostedAccount('Theirs co');
    const theirOwner = await w.member(theirs, 'owner');

    // Their things, made through their own console.
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { kid } = await theirOwner.api.console.access.registerCertificate({ publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    const theirKey = await theirOwner.api.console.access.createKey({ label: 'Theirs' });
    const hook = await theirOwner.api.console.webhooks.create({ url: 'http://127.0.0.1:9/hooks' });
    const delivery = await theirOwner.api.console.webhooks.test({ webhookId: hook.webhook.id });
    const person = await w.personWithAssistant(theirs);
    const budget = await theirOwner.api.console.limits.createBudget({ scope: 'account', period: 'month', limitCredits: 10 });
    const request = await call(app(), '/phone-line-requests', { key: theirs.key, as: person.email, body: { requestedChannels: { sms: true } } });
    const theirDev = await theirOwner.api.console.addMember({ email: `their-dev-${Date.now()}@example.com`, role: 'developer' });

    const refusals = {
      revokeCertificate: () => dev.api.console.access.revokeCertificate({ kid }),
      revokeKey: () => dev.api.console.access.revokeKey({ keyId: theirKey.apiKey.id }),
      updateWebhook: () => dev.api.console.webhooks.update({ webhookId: hook.webhook.id, patch: { status: 'disabled' } }),
      deleteWebhook: () => dev.api.console.webhooks.delete({ webhookId: hook.webhook.id }),
      deliveries: () => dev.api.console.webhooks.deliveries({ webhookId: hook.webhook.id }),
      resend: () => dev.api.console.webhooks.resend({ webhookId: hook.webhook.id, deliveryId: delivery.delivery.id }),
      topUp: () => dev.api.console.limits.topUp({ budgetId: budget.budget.id, credits: 1000 }),
      deleteBudget: () => dev.api.console.limits.deleteBudget({ budgetId: budget.budget.id }),
      fulfil: () => dev.api.console.channels.fulfilPhoneLine({ requestId: request.body.request.id, number: '+16285550199' }),
      dismiss: () => dev.api.console.channels.dismissPhoneLine({ requestId: request.body.request.id }),
      budgetForTheirUser: () => dev.api.console.limits.createBudget({ scope: 'user', userEmail: person.email, period: 'month', limitCredits: 1 }),
    };
    for (const [name, p] of Object.entries(refusals)) expect(await codeOf(p()), name).toBe('NOT_FOUND:not_found');
    // Their lock's organization is not ours either.
    expect(await codeOf(dev.api.console.settings.setLock({ organizationId: theirs.accountId, actionType: 'calendar', mode: 'manual' }))).toBe('NOT_FOUND:not_found');

    // Nothing of theirs changed.
    const [cert] = await w.db().select().from(accountCertificates).where(eq(accountCertificates.id, kid));
    expect(cert!.revokedAt).toBeNull();
    expect((await call(app(), '/me', { key: theirKey.apiKey.key! })).status).toBe(200);
    const [endpoint] = await w.db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, hook.webhook.id));
    expect(endpoint!.status).toBe('enabled');
    expect(await w.db().select().from(creditBudgets).where(eq(creditBudgets.id, budget.budget.id))).toHaveLength(1);
    const [req] = await w.db().select().from(phoneLineRequests).where(eq(phoneLineRequests.id, request.body.request.id));
    expect(req!.status).toBe('pending');

    // Our lists hold none of theirs.
    const text = JSON.stringify([
      await dev.api.console.access.keys(),
      await dev.api.console.access.certificates(),
      await dev.api.console.webhooks.list(),
      await dev.api.console.limits.budgets(),
      await dev.api.console.channels.phoneLines(),
      await dev.api.console.members(),
      await dev.api.console.audit.list({ limit: 100 }),
      await dev.api.console.audit.export({}),
      await dev.api.console.overview(),
    ]);
    for (const id of [kid, theirKey.apiKey.id, hook.webhook.id, budget.budget.id, request.body.request.id, theirDev.member.id, person.email, theirOwner.email, theirs.accountId]) {
      expect(text).not.toContain(id);
    }

    // Our member's session on their domain is no session at all; their member's on ours neither.
    const crossed = await w.browser(theirs.host, dev.userId);
    expect(await codeOf(crossed.console.overview())).toBe('UNAUTHORIZED');
    expect(await codeOf((await w.browser(mine.host, theirOwner.userId)).console.members())).toBe('UNAUTHORIZED');
  });
});

describe('the overview', () => {
  it('counts the account’s users, organizations, teams, tasks, spend and failures', async () => {
    const acct = await w.hostedAccount('Overview co');
    const viewer = await w.member(acct, 'viewer');
    const empty = await viewer.api.console.overview();
    expect(empty).toMatchObject({ organizations: 0, tasks: { total: 0 }, spend: { thisMonthCredits: 0 }, errors: { failedRunsThisWeek: 0, recentFailures: [] }, consoleMembers: 1 });

    const org = await call(app(), '/organizations', { key: acct.key, body: { name: 'Northwind' } });
    expect(org.status).toBe(201);
    const person = await w.personWithAssistant(acct);
    await newUser(app(), acct);
    const titles = ['Book the dentist', 'Renew the lease', 'Plan the offsite'];
    const taskIds: string[] = [];
    for (const title of titles) {
      const t = await call(app(), '/tasks', { key: acct.key, as: person.email, body: { title, assistant: person.assistantId } });
      expect(t.status, JSON.stringify(t.body)).toBe(201);
      taskIds.push(t.body.task.id);
    }
    // A run that failed and one model call that cost credits, as the runtime records them.
    const [run] = await w.db().insert(taskRuns).values({ taskId: taskIds[0]!, accountId: acct.accountId, userId: person.id, trigger: 'process', modelTier: 'medium', status: 'failed', error: 'The model endpoint answered 500' }).returning();
    await recordModelCall(w.db(), { runId: run!.id, seq: 0, modelTier: 'medium', model: 'm', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheCreationTokens: 0 }, chargedCredits: 1.25, isBillable: true });

    const o = await viewer.api.console.overview();
    expect(o.users).toEqual({ total: 3, active: 3, inactive: 0, suspended: 0 }); // the two people and the console member
    expect(o.organizations).toBe(1);
    expect(o.teams).toBeGreaterThanOrEqual(2);
    expect(o.tasks).toMatchObject({ total: 3, open: 3, createdThisWeek: 3, byStatus: { pending: 3 } });
    expect(o.spend.thisMonthCredits).toBeCloseTo(1.25, 6);
    expect(o.spend.lastSevenDaysCredits).toBeCloseTo(1.25, 6);
    expect(o.errors.failedRunsThisWeek).toBe(1);
    expect(o.errors.recentFailures).toEqual([{ taskId: taskIds[0], title: 'Book the dentist', error: 'The model endpoint answered 500', at: expect.any(String) }]);

    // More failures: the five newest are listed, newest first; one older than a week is neither listed nor counted.
    const day = 24 * 3600_000;
    const failedAt = (minutesAgo: number, task: number, error: string) =>
      w.db().insert(taskRuns).values({ taskId: taskIds[task]!, accountId: acct.accountId, userId: person.id, trigger: 'process', modelTier: 'medium', status: 'failed', error, createdAt: new Date(Date.now() - minutesAgo * 60_000) });
    for (const [ago, task] of [[50, 1], [40, 2], [30, 1], [20, 2], [10, 1]] as const) await failedAt(ago, task, `failure ${ago} minutes ago`);
    await failedAt((8 * day) / 60_000, 2, 'last week');
    const more = await viewer.api.console.overview();
    expect(more.errors.failedRunsThisWeek).toBe(6);
    expect(more.errors.recentFailures.map((f) => [f.title, f.error])).toEqual([
      ['Book the dentist', 'The model endpoint answered 500'],
      ['Renew the lease', 'failure 10 minutes ago'],
      ['Plan the offsite', 'failure 20 minutes ago'],
      ['Renew the lease', 'failure 30 minutes ago'],
      ['Plan the offsite', 'failure 40 minutes ago'],
    ]);
  });
});

describe('the audit log', () => {
  it('filters by action and actor, pages with a cursor, and exports every match', async () => {
    const acct = await w.hostedAccount('Audit co');
    const dev = await w.member(acct, 'developer');
    for (let i = 0; i < 105; i++) await dev.api.console.settings.setKillSwitch({ engaged: i % 2 === 0 });
    await dev.api.console.limits.setRateLimits({ reads: 500, writes: 40 });

    const first = await dev.api.console.audit.list({ filters: { action: 'kill_switch.changed' }, limit: 100 });
    expect(first.events).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    expect(first.events.every((e) => e.action === 'kill_switch.changed' && e.actor.id === dev.userId)).toBe(true);
    const rest = await dev.api.console.audit.list({ filters: { action: 'kill_switch.changed' }, cursor: first.cursor!, limit: 100 });
    expect(rest).toMatchObject({ hasMore: false, cursor: null });
    expect(rest.events).toHaveLength(5);
    expect((await dev.api.console.audit.list({ filters: { actorId: dev.userId, action: 'rate_limits.changed' } })).events).toHaveLength(1);
    expect((await dev.api.console.audit.list({ filters: { actorId: 'someone-else' } })).events).toHaveLength(0);
    expect(await codeOf(dev.api.console.audit.list({ filters: { since: '2030-01-01T00:00:00Z', until: '2020-01-01T00:00:00Z' } }))).toBe('BAD_REQUEST');

    const all = await dev.api.console.audit.export({ action: 'kill_switch.changed' });
    expect(all).toMatchObject({ truncated: false });
    expect(all.events).toHaveLength(105);
    const csv = auditCsv(all.events).trimEnd().split('\r\n');
    expect(csv[0]).toBe('occurredAt,action,actorType,actorId,actorEmail,targetType,targetId,organizationId,ip,userAgent,requestId,changes');
    expect(csv).toHaveLength(106);
    expect(csv[1]).toContain(`kill_switch.changed,user,${dev.userId},${dev.email},account,${acct.accountId}`);
    expect(csv[1]).toContain('"{""before"":{""killSwitch"":');
  });

  it('a CSV field a spreadsheet would run as a formula is made text; quotes and commas are quoted', () => {
    const csv = auditCsv([
      { id: 'e1', occurredAt: '2025-01-01T00:00:00.000Z', action: 'sso.updated', actor: { type: 'user', id: 'u1', email: '=HYPERLINK("http://evil")' }, target: { type: 'organization', id: 'o1' }, accountId: 'a1', userAgent: 'Mozilla, "quoted"' },
    ]);
    const line = csv.split('\r\n')[1]!;
    expect(line).toBe(`2025-01-01T00:00:00.000Z,sso.updated,user,u1,"'=HYPERLINK(""http://evil"")",organization,o1,,,"Mozilla, ""quoted""",,`);
  });
});

