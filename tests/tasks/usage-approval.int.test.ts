import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskActivities, taskRuns, tasks } from '@/db/schema';
import { setKillSwitch } from '@/server/accounts/service';
import { ApproveBatchResponse, TaskEnvelope, TaskUsageResponse } from '@/server/tasks/contracts';
import { recordModelCall } from '@/server/tasks/usage';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const db = () => app().database.db;
const hour = 3_600_000;

async function person(acct: AccountFixture) {
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  return { ...u, key, acct, assistantId: hired.body.assistant.id as string };
}
type Person = Awaited<ReturnType<typeof person>>;

async function setup() {
  const acct = await newAccount(app());
  return { acct, a: await person(acct), b: await person(acct) };
}

async function userTask(p: Person) {
  const res = await call(app(), '/tasks', { key: p.key, body: { title: 'Book a table', assistant: p.assistantId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return TaskEnvelope.parse(res.body).task;
}

/** What the create_task tool will do with needsApproval (it comes with the runtime): a held proposal, written straight to the table. */
async function proposal(p: Person, extra: Partial<typeof tasks.$inferInsert> = {}) {
  const [row] = await db()
    .insert(tasks)
    .values({
      accountId: p.acct.accountId,
      userId: p.id,
      assistantId: p.assistantId,
      title: 'Renew the passport',
      modelTier: 'medium',
      createdBy: 'agent',
      proposalStatus: 'pending_user_approval',
      onBehalfOf: p.email,
      ...extra,
    })
    .returning();
  return row;
}

const runsOf = (taskId: string) => db().select().from(taskRuns).where(eq(taskRuns.taskId, taskId));
const rowOf = async (taskId: string) => (await db().select().from(tasks).where(eq(tasks.id, taskId)))[0];
const approve = (p: Person, id: string, body?: unknown) => call(app(), `/tasks/${id}/approve`, { key: p.key, method: 'POST', body });
const decline = (p: Person, id: string, body?: unknown) => call(app(), `/tasks/${id}/decline`, { key: p.key, method: 'POST', body });

describe('tasks: usage', () => {
  it('reports each model step recorded by the runtime, the token totals and the credits per run', async () => {
    const { a } = await setup();
    const task = await userTask(a);
    const [first] = await db().insert(taskRuns).values({ taskId: task.id, accountId: a.acct.accountId, trigger: 'process', modelTier: 'medium', createdAt: new Date(Date.now() - hour) }).returning();
    const [second] = await db().insert(taskRuns).values({ taskId: task.id, accountId: a.acct.accountId, trigger: 'alarm', modelTier: 'medium' }).returning();
    const usage = (i: number, o: number, r = 0, c = 0) => ({ inputTokens: i, outputTokens: o, cacheReadTokens: r, cacheCreationTokens: c });
    // Recorded out of order: the endpoint orders by run, then step.
    await recordModelCall(db(), { runId: first.id, seq: 1, modelTier: 'medium', model: 'm-1', usage: usage(50, 20, 100, 0), chargedCredits: 0.000123, isBillable: true });
    await recordModelCall(db(), { runId: first.id, seq: 0, modelTier: 'medium', model: 'm-1', usage: usage(1000, 200, 0, 300), chargedCredits: 0.1, isBillable: true });
    await recordModelCall(db(), { runId: second.id, seq: 0, modelTier: 'low', model: 'own', usage: usage(7, 3), chargedCredits: 0, isBillable: false });
    // A retried step records nothing twice.
    expect(await recordModelCall(db(), { runId: first.id, seq: 0, modelTier: 'medium', model: 'm-1', usage: usage(1000, 200, 0, 300), chargedCredits: 0.1, isBillable: true })).toBeNull();

    const res = await call(app(), `/tasks/${task.id}/usage`, { key: a.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = TaskUsageResponse.parse(res.body);
    expect(body.total).toEqual({ inputTokens: 1057, outputTokens: 223, cacheReadTokens: 100, cacheCreationTokens: 300 });
    expect(body.rows.map((r) => [r.runId, r.seq])).toEqual([
      [first.id, 0],
      [first.id, 1],
      [second.id, 0],
    ]);
    expect(body.rows[0]).toMatchObject({ modelTier: 'medium', model: 'm-1', inputTokens: 1000, outputTokens: 200, cacheReadTokens: 0, cacheCreationTokens: 300, chargedCredits: 0.1, isBillable: true });
    expect(body.rows[2]).toMatchObject({ modelTier: 'low', chargedCredits: 0, isBillable: false });
    expect(body.credits.total).toBe(0.100123);
    expect(body.credits.runs).toEqual([
      { runId: first.id, chargedCredits: 0.100123, isBillable: true, createdAt: first.createdAt.toISOString() },
      { runId: second.id, chargedCredits: 0, isBillable: false, createdAt: second.createdAt.toISOString() },
    ]);

    // An account key without X-User-Email reads any task's usage, as it reads the task.
    expect((await call(app(), `/tasks/${task.id}/usage`, { key: a.acct.key })).status).toBe(200);
  });

  it('is empty before any run, and 404 for another user or account', async () => {
    const { a, b } = await setup();
    const task = await userTask(a);
    const empty = await call(app(), `/tasks/${task.id}/usage`, { key: a.key });
    expect(empty.body).toEqual({
      ok: true,
      total: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      rows: [],
      credits: { total: 0, runs: [] },
      calls: { calls: 0, seconds: 0, minutes: 0 },
    });
    expect((await call(app(), `/tasks/${task.id}/usage`, { key: b.key })).status).toBe(404);
    const other = await person(await newAccount(app(), 'Other'));
    expect((await call(app(), `/tasks/${task.id}/usage`, { key: other.key })).status).toBe(404);
    expect((await call(app(), `/tasks/${task.id}/usage`, { key: other.acct.key })).status).toBe(404);
  });
});

describe('tasks: approve and decline what the assistant proposed', () => {
  it('approve starts a held pending task: executing, approved, a queued run, the reason in its conversation', async () => {
    const { a } = await setup();
    const held = await proposal(a);
    const res = await approve(a, held.id, { reason: 'Yes, before June' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(TaskEnvelope.parse(res.body).task).toMatchObject({ id: held.id, status: 'executing', createdBy: 'agent', proposalStatus: 'approved' });
    const runs = await runsOf(held.id);
    expect(runs).toHaveLength(1);
    expect(runs[0].status).toBe('queued');
    const acts = await db().select().from(taskActivities).where(eq(taskActivities.taskId, held.id));
    expect(acts.map((x) => [x.kind, x.content, x.runId])).toEqual([['user', 'Yes, before June', runs[0].id]]);

    // Approving again is 409 naming where the task is.
    const again = await approve(a, held.id);
    expect(again.status).toBe(409);
    // `status` names the task's status, as every refused move does (transitions.ts refused()).
    expect(again.body).toMatchObject({ error_code: 'not_pending_approval', status: 409, taskStatus: 'executing', proposalStatus: 'approved' });
    expect(await runsOf(held.id)).toHaveLength(1);
  });

  it('approve leaves a scheduled proposal waiting for its time; one whose time passed starts now', async () => {
    const { a } = await setup();
    const at = new Date(Date.now() + 2 * hour);
    const later = await proposal(a, { status: 'scheduled', scheduledFor: at });
    const res = await approve(a, later.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.task).toMatchObject({ status: 'scheduled', scheduledFor: at.toISOString(), proposalStatus: 'approved' });
    expect(await runsOf(later.id)).toEqual([]);

    const due = await proposal(a, { status: 'scheduled', scheduledFor: new Date(Date.now() - 60_000) });
    const started = await approve(a, due.id);
    expect(started.body.task).toMatchObject({ status: 'executing', proposalStatus: 'approved' });
    expect((await runsOf(due.id)).map((r) => r.trigger)).toEqual(['schedule']);
  });

  it('decline archives the proposal with the reason in its conversation and runs nothing', async () => {
    const { a } = await setup();
    const held = await proposal(a);
    const res = await decline(a, held.id, { reason: 'Not this year' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(TaskEnvelope.parse(res.body).task).toMatchObject({ status: 'archived', proposalStatus: 'declined' });
    expect(await runsOf(held.id)).toEqual([]);
    const acts = await db().select().from(taskActivities).where(eq(taskActivities.taskId, held.id));
    expect(acts.map((x) => x.content)).toEqual(['Not this year']);
    // Declined is final: neither approve nor decline again.
    expect((await approve(a, held.id)).status).toBe(409);
    expect((await decline(a, held.id)).status).toBe(409);
    // Without a reason nothing is added to the conversation.
    const quiet = await proposal(a);
    expect((await decline(a, quiet.id)).status).toBe(200);
    expect(await db().select().from(taskActivities).where(eq(taskActivities.taskId, quiet.id))).toEqual([]);
  });

  it('a task the user created is not a proposal: 409 naming its status, nothing changes', async () => {
    const { a } = await setup();
    const task = await userTask(a);
    for (const res of [await approve(a, task.id), await decline(a, task.id)]) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error_code: 'not_pending_approval', status: 409, taskStatus: 'pending', proposalStatus: null });
    }
    expect((await rowOf(task.id)).status).toBe('pending');
    expect(await runsOf(task.id)).toEqual([]);
  });

  it("another user's proposal is 404 and untouched; a follower may approve; PUT cannot bypass the approval", async () => {
    const { a, b } = await setup();
    const held = await proposal(a);
    expect((await approve(b, held.id)).status).toBe(404);
    expect((await decline(b, held.id)).status).toBe(404);
    expect((await call(app(), `/tasks/${held.id}/approve`, { key: a.acct.key, method: 'POST' })).status).toBe(401);
    const other = await person(await newAccount(app(), 'Other'));
    expect((await approve(other, held.id)).status).toBe(404);
    expect(await rowOf(held.id)).toMatchObject({ status: 'pending', proposalStatus: 'pending_user_approval' });

    const put = await call(app(), `/tasks/${held.id}`, { key: a.key, method: 'PUT', body: { status: 'on_hold' } });
    expect(put.status).toBe(409);
    expect(put.body.error_code).toBe('pending_approval');
    // Nor can a message start it: process is refused until the proposal is approved, and no run is queued.
    const processed = await call(app(), `/tasks/${held.id}/process`, { key: a.key, method: 'POST', body: { message: 'go ahead' } });
    expect(processed.status).toBe(409);
    expect(processed.body).toMatchObject({ error_code: 'pending_approval', proposalStatus: 'pending_user_approval' });
    expect(await rowOf(held.id)).toMatchObject({ status: 'pending', proposalStatus: 'pending_user_approval' });

    const followed = await proposal(a, { followers: [b.email.toLowerCase()] });
    const res = await approve(b, followed.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.task).toMatchObject({ status: 'executing', proposalStatus: 'approved', owner: a.email });
  });

  it('the kill switch refuses approve and approve-batch with 423; decline still works', async () => {
    const { acct, a } = await setup();
    const held = await proposal(a);
    await setKillSwitch(db(), acct.accountId, true);
    const res = await approve(a, held.id);
    expect(res.status).toBe(423);
    expect(res.body.error_code).toBe('KILL_SWITCH_ENGAGED');
    expect((await call(app(), '/tasks/approve-batch', { key: a.key, body: { taskIds: [held.id] } })).status).toBe(423);
    expect(await rowOf(held.id)).toMatchObject({ status: 'pending', proposalStatus: 'pending_user_approval' });
    expect((await decline(a, held.id)).status).toBe(200);
    await setKillSwitch(db(), acct.accountId, false);
  });

  it('approve and decline check their body: a reason over 100,000 characters is 400 naming it', async () => {
    const { a } = await setup();
    const held = await proposal(a);
    const res = await approve(a, held.id, { reason: 'x'.repeat(100_001) });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('reason');
    expect((await rowOf(held.id)).proposalStatus).toBe('pending_user_approval');
  });
});

describe('tasks: approve-batch', () => {
  it('approves each task on its own: failures are listed and do not stop the others', async () => {
    const { a, b } = await setup();
    const one = await proposal(a);
    const two = await proposal(a, { status: 'scheduled', scheduledFor: new Date(Date.now() + hour) });
    const mine = await userTask(a);
    const theirs = await proposal(b);
    const res = await call(app(), '/tasks/approve-batch', { key: a.key, body: { taskIds: [one.id, mine.id, theirs.id, 'nope', two.id, one.id] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { batch } = ApproveBatchResponse.parse(res.body);
    expect(batch.approved).toEqual([one.id, two.id]);
    expect(batch.failed.map((f) => [f.taskId, f.errorCode])).toEqual([
      [mine.id, 'not_pending_approval'],
      [theirs.id, 'not_found'],
      ['nope', 'not_found'],
    ]);
    expect(await rowOf(one.id)).toMatchObject({ status: 'executing', proposalStatus: 'approved' });
    expect(await rowOf(two.id)).toMatchObject({ status: 'scheduled', proposalStatus: 'approved' });
    expect(await rowOf(theirs.id)).toMatchObject({ status: 'pending', proposalStatus: 'pending_user_approval' });
    expect(await runsOf(one.id)).toHaveLength(1);
  });

  it('more than 100 ids, or none, is 400 naming taskIds', async () => {
    const { a } = await setup();
    const ids = Array.from({ length: 101 }, (_, i) => `t${i}`);
    const tooMany = await call(app(), '/tasks/approve-batch', { key: a.key, body: { taskIds: ids } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toContain('taskIds');
    const none = await call(app(), '/tasks/approve-batch', { key: a.key, body: { taskIds: [] } });
    expect(none.status).toBe(400);
    expect(none.body.error).toContain('taskIds');
  });
});
