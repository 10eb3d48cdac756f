import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditBlockedTasks, taskActivities, taskModelCalls } from '@/db/schema';
import { setAccountLimits } from '@/server/accounts/limits';
import { insertBudget } from '@/server/budgets/service';
import { periodEnd } from '@/server/budgets/periods';
import { sweepBudgets } from '@/server/budgets/sweep';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';
import { newChat, openStream } from '../chats/turn-harness';
import { startReceiver } from '../webhooks/receiver';

/**
 * Budgets on the real paths: task runs and chat turns through the built-in executor against the
 * scripted model, every call priced at 1 credit (10 prompt tokens at 100,000 credits per million).
 * A spent budget blocks the task (credits_blocked) or the turn (`credits_exhausted`); a top-up, a
 * raised limit or a new period resumes the task; 50 concurrent runs overshoot a budget by at most
 * one call; thresholds are announced once each.
 */
const h = useRunHarness();
const { app, db, person, startTask, createTask, taskRow, ended, until } = h;
const llm = () => h.state.llm;
const PRICES = JSON.stringify({ medium: { input: 100_000, output: 0 } });
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  process.env.STEWARD_MODEL_PRICES = PRICES;
  process.env.STEWARD_WEBHOOK_ALLOW_PRIVATE = '127.0.0.0/8';
  receiver = await startReceiver();
});
afterAll(async () => {
  delete process.env.STEWARD_MODEL_PRICES;
  delete process.env.STEWARD_WEBHOOK_ALLOW_PRIVATE;
  await receiver?.close();
});

const plan = (text: string) => ({ name: 'update_plan', arguments: { items: [{ text, status: 'done' }] } });
const lastActivity = async (taskId: string) =>
  (await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'assistant'))).orderBy(taskActivities.createdAt, taskActivities.id)).at(-1);
const statusOf = async (taskId: string) => (await taskRow(taskId)).status;
const spentOn = async (accountId: string) =>
  Number((await db().select({ n: sql<string>`coalesce(sum(${taskModelCalls.chargedCredits}), 0)` }).from(taskModelCalls).where(eq(taskModelCalls.accountId, accountId)))[0].n);

describe('task runs against a budget', () => {
  it('50 concurrent runs exceed a budget by at most one model call; every task ends credits_blocked; 50/80/100 % are announced once each', async () => {
    const acct = await newAccount(app());
    await setAccountLimits(db(), acct.accountId, { userMaxConcurrentRuns: 60 });
    const hook = await call(app(), '/webhooks', { key: acct.key, body: { url: receiver.url, events: [] } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const a = await person(acct);
    const budget = await insertBudget(db(), acct.accountId, { scope: 'account', scopeId: acct.accountId, period: 'month', limitCredits: 20.5 });
    let n = 0;
    llm().setFallback(() => ({ toolCalls: [plan(`step ${++n}`)] }));

    const ids = [];
    for (let i = 0; i < 50; i++) ids.push(await createTask(a, { title: `Errand ${i}` }));
    const processed = await Promise.all(ids.map((id) => call(app(), `/tasks/${id}/process`, { key: a.key, body: {} })));
    for (const p of processed) expect(p.status, JSON.stringify(p.body)).toBe(200);
    for (const p of processed) await ended(p.body.process.executionId);

    const spent = await spentOn(acct.accountId);
    expect(llm().requests.length).toBe(spent);
    expect(spent).toBeGreaterThanOrEqual(20.5);
    expect(spent).toBeLessThanOrEqual(20.5 + 1);
    for (const id of ids) expect(await statusOf(id)).toBe('credits_blocked');
    const got = await call(app(), `/budgets/${budget.id}`, { key: acct.key });
    expect(got.body.budget.current).toMatchObject({ spentCredits: spent, reservedCredits: 0, remainingCredits: 0, alerted: [50, 80, 100] });

    await until(async () => receiver.received.filter((r) => r.json.type === 'budget.threshold_reached').length >= 3, 20_000);
    const alerts = receiver.received.filter((r) => r.json.type === 'budget.threshold_reached').map((r) => r.json.data);
    expect(alerts.map((d) => d.threshold).sort((x, y) => x - y)).toEqual([50, 80, 100]);
    expect(alerts[0]).toMatchObject({ budgetId: budget.id, scope: 'account', scopeId: acct.accountId, period: 'month', limitCredits: 20.5 });
  }, 180_000);

  it('a spent budget blocks the task with an activity naming it; a message tries again; a top-up resumes it and it completes', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const created = await call(app(), '/budgets', { key: acct.key, body: { scope: 'user', scopeId: a.id, period: 'month', limitCredits: 2 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const budgetId = created.body.budget.id as string;
    let n = 0;
    llm().setFallback(() => ({ toolCalls: [plan(`step ${++n}`)] }));

    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'cancelled', error: 'credits_exhausted' });
    expect(llm().requests).toHaveLength(2);
    expect(await statusOf(taskId)).toBe('credits_blocked');
    const said = await lastActivity(taskId);
    expect(said?.content).toContain(`the user budget ${budgetId} has no credits left`);
    expect(said?.content).toContain(`/api/budgets/${budgetId}/top-up`);
    const credits = await call(app(), '/credits', { key: a.key });
    expect(credits.body.credits).toMatchObject({ userId: a.id, blocked: true, remainingCredits: 0 });

    // A message is attached and the task tries again: still no credits, still blocked, the message kept.
    const again = await call(app(), `/tasks/${taskId}/process`, { key: a.key, body: { message: 'Please finish it' } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await ended(again.body.process.executionId)).toMatchObject({ status: 'cancelled', error: 'credits_exhausted' });
    expect(await statusOf(taskId)).toBe('credits_blocked');
    expect(llm().requests).toHaveLength(2);

    // The top-up gives room: the task resumes on its own, reads the message, and completes.
    llm().setFallback(null);
    llm().enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Finished' } }] });
    const topped = await call(app(), `/budgets/${budgetId}/top-up`, { key: acct.key, body: { credits: 5 } });
    expect(topped.status, JSON.stringify(topped.body)).toBe(200);
    expect(topped.body.budget.current).toMatchObject({ limitCredits: 7, toppedUpCredits: 5, spentCredits: 2 });
    await until(async () => (await statusOf(taskId)) === 'completed', 20_000);
    expect(JSON.stringify(llm().requests[2].messages)).toContain('Please finish it');
    expect(await db().select().from(creditBlockedTasks).where(eq(creditBlockedTasks.taskId, taskId))).toHaveLength(0);
  }, 60_000);

  it('a raised limit resumes blocked tasks; so does a new period (the sweep)', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const budget = await insertBudget(db(), acct.accountId, { scope: 'user', scopeId: a.id, period: 'day', limitCredits: 0 });
    llm().setFallback(() => ({ text: 'Done for now.' }));
    const first = await startTask(a);
    const second = await startTask(a);
    await ended(first.runId);
    await ended(second.runId);
    expect(llm().requests).toHaveLength(0);
    expect(await statusOf(first.taskId)).toBe('credits_blocked');

    const raised = await call(app(), `/budgets/${budget.id}`, { method: 'PATCH', key: acct.key, body: { limitCredits: 1 } });
    expect(raised.status, JSON.stringify(raised.body)).toBe(200);
    // One credit: one task's call used it, and the other found the budget spent again.
    const both = async () => [await statusOf(first.taskId), await statusOf(second.taskId)].sort().join();
    await until(async () => (await both()) === 'awaiting_user_input,credits_blocked', 20_000);
    expect(llm().requests).toHaveLength(1);
    const blocked = (await statusOf(second.taskId)) === 'credits_blocked' ? second.taskId : first.taskId;

    // Tomorrow the day's spend starts from 0: the sweep resumes the task.
    const tomorrow = periodEnd('day', new Date())!;
    const swept = await sweepBudgets(db(), new Date(tomorrow.getTime() + 1000));
    expect(swept.resumed).toBe(1);
    expect(await statusOf(blocked)).toBe('pending');
    const [note] = await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, blocked), eq(taskActivities.kind, 'system')));
    expect(note?.content).toContain('Credits were restored');
  }, 60_000);
});

describe('chat turns against a budget', () => {
  it('a spent budget ends the turn with the error event credits_exhausted; a top-up lets the next turn answer', async () => {
    const acct = await newAccount(app());
    const p = await person(acct);
    const budget = await insertBudget(db(), acct.accountId, { scope: 'account', scopeId: acct.accountId, period: 'none', limitCredits: 0 });
    const chatId = await newChat(app(), p);
    const s = openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'Hello?' } } });
    expect(await s.status).toBe(200);
    const events = await s.done;
    const error = events.at(-1)!;
    expect(error.event).toBe('error');
    expect(error.data.code).toBe('credits_exhausted');
    expect(error.data.message).toContain(budget.id);
    expect(llm().requests).toHaveLength(0);

    await call(app(), `/budgets/${budget.id}/top-up`, { key: acct.key, body: { credits: 3 } });
    llm().enqueue({ text: 'Hello!' });
    const again = await openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'Hello again' } } }).done;
    expect(again.at(-1)).toMatchObject({ event: 'message', data: { message: { content: 'Hello!' } } });
    const got = await call(app(), `/budgets/${budget.id}`, { key: acct.key });
    expect(got.body.budget.current).toMatchObject({ spentCredits: 1, reservedCredits: 0, limitCredits: 3 });
  }, 60_000);
});

describe('settlement after the usage row', () => {
  /**
   * The state a crash leaves between a call's usage row and its settlement (settle-later.ts): the
   * reservations of the account held again, their cost back from `spent` to `reserved`.
   */
  async function unsettle(accountId: string, budgetId: string) {
    const { rows } = await db().execute<{ n: string }>(sql`
      WITH undone AS (
        UPDATE credit_reservations SET status = 'held', settled_credits = NULL, settled_at = NULL, created_at = now() - interval '2 minutes'
        WHERE account_id = ${accountId} AND status = 'settled'
        RETURNING amount, (SELECT settled_credits FROM credit_reservations o WHERE o.id = credit_reservations.id) AS settled
      ) UPDATE credit_budget_usage SET spent = spent - (SELECT sum(settled) FROM undone), reserved = reserved + (SELECT sum(amount) FROM undone)
        WHERE budget_id = ${budgetId} RETURNING (SELECT count(*) FROM undone)::text AS n`);
    return Number(rows[0]?.n ?? 0);
  }

  it('a run or turn that ended shows its calls settled; what a crash left held after the usage row, the sweep settles from the row', async () => {
    const acct = await newAccount(app());
    const p = await person(acct);
    // Room for far more than a hundred calls: after the first (its cost unknown, it holds the whole budget), calls settle after their step.
    const budget = await insertBudget(db(), acct.accountId, { scope: 'account', scopeId: acct.accountId, period: 'month', limitCredits: 1000 });
    llm().enqueue({ toolCalls: [plan('look')] }, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Booked.' } }] });
    const { runId } = await startTask(p);
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    llm().enqueue({ text: 'Hello!' });
    const chatId = await newChat(app(), p);
    const events = await openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'Hello?' } } }).done;
    expect(events.at(-1)).toMatchObject({ event: 'message' });
    const current = async () => (await call(app(), `/budgets/${budget.id}`, { key: acct.key })).body.budget.current;
    expect(await current()).toMatchObject({ spentCredits: 3, reservedCredits: 0 });

    // The process died after each call's usage row and before its settlement.
    expect(await unsettle(acct.accountId, budget.id)).toBe(3);
    const crashed = await current();
    expect(crashed.spentCredits).toBe(0);
    expect(crashed.reservedCredits).toBeGreaterThan(0);
    const swept = await sweepBudgets(db());
    expect(swept.settled).toBeGreaterThanOrEqual(3);
    expect(await current()).toMatchObject({ spentCredits: 3, reservedCredits: 0 });
    // Settled once: a second sweep charges nothing more.
    await sweepBudgets(db());
    expect(await current()).toMatchObject({ spentCredits: 3, reservedCredits: 0 });
  }, 60_000);
});
