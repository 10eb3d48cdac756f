import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskActivities, taskRuns, tasks } from '@/db/schema';
import { setKillSwitch } from '@/server/accounts/service';
import { ListActivitiesResponse, ListTasksResponse, ProcessResponse, TaskDetailEnvelope, TaskEnvelope } from '@/server/tasks/contracts';
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
  return { ...u, key, assistantId: hired.body.assistant.id as string, assistantEmail: hired.body.assistant.email as string };
}

async function setup() {
  const acct = await newAccount(app());
  return { acct, a: await person(acct), b: await person(acct) };
}

type Person = Awaited<ReturnType<typeof person>>;

async function newTask(p: Person, body: Record<string, unknown> = {}) {
  const res = await call(app(), '/tasks', { key: p.key, body: { title: 'Book a table', assistant: p.assistantId, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return TaskEnvelope.parse(res.body).task;
}

/** What only the runtime does (a run waiting on the user): written straight to the table, with the alarm the guarantee demands. */
async function awaitUser(taskId: string) {
  await db()
    .update(tasks)
    .set({ status: 'awaiting_user_input', alarmStatus: 'set', alarmWakeAt: new Date(Date.now() + hour), alarmHeadline: 'Follow up', readyForReview: true })
    .where(eq(tasks.id, taskId));
}

describe('tasks: create, read, list', () => {
  it('creates a pending task with every field, tier medium by default, for an assistant named by id or email', async () => {
    const { a } = await setup();
    const task = await newTask(a, { description: 'For four', skills: ['booking'], followers: ['Friend@Example.org'] });
    expect(task).toMatchObject({
      type: 'task',
      status: 'pending',
      owner: a.email,
      ownerId: a.id,
      assistant: a.assistantId,
      modelTier: 'medium',
      createdBy: 'user',
      plan: [],
      waitingOnContacts: [],
      alarm: null,
      pendingCart: null,
      handledBy: null,
      readyForReview: false,
      followers: [a.email, 'friend@example.org'],
      onBehalfOf: a.email,
      parentTask: null,
    });
    const byEmail = await newTask(a, { assistant: a.assistantEmail.toUpperCase(), modelTier: 'ultra' });
    expect(byEmail).toMatchObject({ assistant: a.assistantId, modelTier: 'ultra' });

    const got = await call(app(), `/tasks/${task.id}`, { key: a.key });
    expect(got.status).toBe(200);
    const detail = TaskDetailEnvelope.parse(got.body).task;
    expect(detail).toMatchObject({ id: task.id, recentActivity: [], effectiveApprovalMode: null, approvalLocks: [] });
  });

  it('creates a scheduled task for a future time; creating does not start it', async () => {
    const { a } = await setup();
    const at = new Date(Date.now() + 2 * hour).toISOString();
    const task = await newTask(a, { status: 'scheduled', scheduledFor: at });
    expect(task).toMatchObject({ status: 'scheduled', scheduledFor: at });
    expect(await db().select().from(taskRuns).where(eq(taskRuns.taskId, task.id))).toEqual([]);
  });

  it('refuses bad input with 400 naming the field, and writes nothing', async () => {
    const { a } = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ modelTier: 'huge' }, 'modelTier'],
      [{ status: 'executing' }, 'status'],
      [{ status: 'scheduled' }, 'scheduledFor'],
      [{ status: 'scheduled', scheduledFor: new Date(Date.now() - hour).toISOString() }, 'scheduledFor'],
      [{ scheduledFor: 'tomorrow' }, 'scheduledFor'],
      [{ title: '' }, 'title'],
      [{ followers: ['not an email'] }, 'followers'],
    ];
    for (const [body, field] of cases) {
      const res = await call(app(), '/tasks', { key: a.key, body: { title: 'T', assistant: a.assistantId, ...body } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toContain(field);
    }
    const noAssistant = await call(app(), '/tasks', { key: a.key, body: { title: 'T' } });
    expect(noAssistant.status).toBe(400);
    expect(noAssistant.body.error).toContain('assistant');
    expect((await call(app(), '/tasks', { key: a.key })).body.tasks).toEqual([]);
  });

  it('refuses an assistant not on the user’s roster with 403', async () => {
    const { a, b } = await setup();
    const res = await call(app(), '/tasks', { key: a.key, body: { title: 'T', assistant: b.assistantId } });
    expect(res.status).toBe(403);
    expect(res.body.error).toContain('assistant');
  });

  it('lists newest first with pages and filters', async () => {
    const { a } = await setup();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await newTask(a, { title: `T${i}` }));
    const all = ListTasksResponse.parse((await call(app(), '/tasks', { key: a.key })).body);
    expect(all.tasks.map((t) => t.title)).toEqual(['T2', 'T1', 'T0']);
    const page2 = ListTasksResponse.parse((await call(app(), '/tasks?page=2&perPage=2', { key: a.key })).body);
    expect(page2).toMatchObject({ page: 2, perPage: 2 });
    expect(page2.tasks.map((t) => t.title)).toEqual(['T0']);
    await call(app(), `/tasks/${made[1].id}/stop`, { key: a.key, method: 'POST' });
    const held = (await call(app(), '/tasks?status=on_hold', { key: a.key })).body.tasks;
    expect(held.map((t: { id: string }) => t.id)).toEqual([made[1].id]);
    expect((await call(app(), '/tasks?status=nonsense', { key: a.key })).status).toBe(400);
  });
});

describe('tasks: isolation', () => {
  it('another user’s task is 404 everywhere; the account key lists (ownerEmail), reads and deletes across users', async () => {
    const { acct, a, b } = await setup();
    const task = await newTask(a);
    await newTask(b, { title: 'B’s' });
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PUT', '', { status: 'paused' }],
      ['DELETE', '', undefined],
      ['POST', '/process', { message: 'hi' }],
      ['POST', '/stop', undefined],
      ['POST', '/mark-done', undefined],
      ['POST', '/feedback', { status: 'like' }],
      ['GET', '/activities', undefined],
    ] as const) {
      const res = await call(app(), `/tasks/${task.id}${path}`, { method, key: b.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await call(app(), '/tasks', { key: b.key })).body.tasks.map((t: { title: string }) => t.title)).toEqual(['B’s']);

    const acrossAll = (await call(app(), '/tasks', { key: acct.key })).body.tasks;
    expect(acrossAll).toHaveLength(2);
    const onlyA = (await call(app(), `/tasks?ownerEmail=${encodeURIComponent(a.email)}`, { key: acct.key })).body.tasks;
    expect(onlyA.map((t: { id: string; owner: string }) => [t.id, t.owner])).toEqual([[task.id, a.email]]);
    expect((await call(app(), `/tasks/${task.id}`, { key: acct.key })).status).toBe(200);
    // Acting as a user is that user's view, even with the account key.
    expect((await call(app(), `/tasks/${task.id}`, { key: acct.key, as: b.email })).status).toBe(404);
    // Everything else needs a user.
    expect((await call(app(), `/tasks/${task.id}/stop`, { key: acct.key, method: 'POST' })).status).toBe(401);
    expect((await call(app(), `/tasks/${task.id}`, { key: acct.key, method: 'DELETE' })).body).toEqual({ ok: true, task: { id: task.id } });
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key })).status).toBe(404);

    const other = await newAccount(app());
    const t2 = await newTask(a);
    expect((await call(app(), `/tasks/${t2.id}`, { key: other.key })).status).toBe(404);
    expect((await call(app(), `/tasks/${t2.id}`, { key: other.key, method: 'DELETE' })).status).toBe(404);
  });
});

describe('tasks: statuses', () => {
  it('process on pending: saves the message, queues one run, executes; a second message goes to the same run', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    const first = await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'Start please' } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const { process } = ProcessResponse.parse(first.body);
    expect(process).toMatchObject({ success: true, taskId: task.id });
    expect(process.executionId).toBeTruthy();
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key })).body.task.status).toBe('executing');
    const second = ProcessResponse.parse((await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'Also this' } })).body);
    expect(second.process.executionId).toBe(process.executionId);
    const runs = await db().select().from(taskRuns).where(eq(taskRuns.taskId, task.id));
    // Recorded, not run: the runtime is not wired yet, and nothing pretends otherwise.
    expect(runs.map((r) => [r.id, r.status, r.trigger])).toEqual([[process.executionId, 'queued', 'process']]);
    const acts = ListActivitiesResponse.parse((await call(app(), `/tasks/${task.id}/activities`, { key: a.key })).body);
    expect(acts.activities.map((x) => [x.type, x.message?.role, x.message?.content, x.runId])).toEqual([
      ['message', 'user', 'Also this', process.executionId],
      ['message', 'user', 'Start please', process.executionId],
    ]);
  });

  it('process on awaiting_user_input is the reply: the task wakes, its alarm is cancelled, a run is queued', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    await awaitUser(task.id);
    const waiting = (await call(app(), `/tasks/${task.id}`, { key: a.key })).body.task;
    expect(waiting).toMatchObject({ status: 'awaiting_user_input', readyForReview: true, alarm: { status: 'set', headline: 'Follow up' } });
    const res = await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'Yes, 8pm' } });
    expect(res.status).toBe(200);
    const after = (await call(app(), `/tasks/${task.id}`, { key: a.key })).body.task;
    expect(after).toMatchObject({ status: 'executing', readyForReview: false, alarm: { status: 'cancelled' } });
  });

  it('process on a scheduled task needs a message, attaches it and keeps the time', async () => {
    const { a } = await setup();
    const at = new Date(Date.now() + hour).toISOString();
    const task = await newTask(a, { status: 'scheduled', scheduledFor: at });
    const bare = await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: {} });
    expect(bare.status).toBe(400);
    expect(bare.body.error).toContain('message');
    const res = ProcessResponse.parse((await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'Bring flowers' } })).body);
    expect(res.process.executionId).toBeNull();
    const after = (await call(app(), `/tasks/${task.id}`, { key: a.key })).body.task;
    expect(after).toMatchObject({ status: 'scheduled', scheduledFor: at });
    expect(after.recentActivity.map((x: { message: { content: string } }) => x.message.content)).toEqual(['Bring flowers']);
    expect(await db().select().from(taskRuns).where(eq(taskRuns.taskId, task.id))).toEqual([]);
  });

  it('process refuses a message over 100,000 characters (400 message) and a finished task (409 naming the status)', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    const long = await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'x'.repeat(100_001) } });
    expect(long.status).toBe(400);
    expect(long.body.error).toContain('message');
    await call(app(), `/tasks/${task.id}/mark-done`, { key: a.key, method: 'POST' });
    const refused = await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'more' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error_code: 'invalid_transition', status: 409, taskStatus: 'done_user_marked' });
    expect(refused.body.error).toContain('done_user_marked');
    expect(await db().select().from(taskActivities).where(eq(taskActivities.taskId, task.id))).toEqual([]);
  });

  it('process drops files that are not the user’s', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'See attached', files: [{ fileId: 'not-a-file' }] } });
    const acts = (await call(app(), `/tasks/${task.id}/activities`, { key: a.key })).body.activities;
    expect(acts[0].files).toEqual([]);
  });

  it('stop → on_hold (ends the run); process resumes; mark-done; mark-not-done → pending; stop on a done task is 409', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    const p = ProcessResponse.parse((await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'go' } })).body);
    const stopped = await call(app(), `/tasks/${task.id}/stop`, { key: a.key, method: 'POST' });
    expect(stopped.body.task.status).toBe('on_hold');
    const [run] = await db().select().from(taskRuns).where(eq(taskRuns.id, p.process.executionId!));
    expect(run.status).toBe('cancelled');
    const again = await call(app(), `/tasks/${task.id}/stop`, { key: a.key, method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 409, taskStatus: 'on_hold' });

    const resumed = ProcessResponse.parse((await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'carry on' } })).body);
    expect(resumed.process.executionId).not.toBe(p.process.executionId);
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key })).body.task.status).toBe('executing');

    const done = await call(app(), `/tasks/${task.id}/mark-done`, { key: a.key, method: 'POST' });
    expect(done.body.task).toMatchObject({ status: 'done_user_marked' });
    expect(done.body.task.completedAt).toBeTruthy();
    const stopDone = await call(app(), `/tasks/${task.id}/stop`, { key: a.key, method: 'POST' });
    expect(stopDone.status).toBe(409);
    expect(stopDone.body.error).toContain('done_user_marked');

    const reopened = await call(app(), `/tasks/${task.id}/mark-not-done`, { key: a.key, method: 'POST' });
    expect(reopened.body.task).toMatchObject({ status: 'pending', completedAt: null });
    const notDoneAgain = await call(app(), `/tasks/${task.id}/mark-not-done`, { key: a.key, method: 'POST' });
    expect(notDoneAgain.status).toBe(409);
    expect(notDoneAgain.body).toMatchObject({ status: 409, taskStatus: 'pending' });
    // The wake-up run mark-not-done queued takes the next message: still one open run.
    await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'how about Friday' } });
    const open = (await db().select().from(taskRuns).where(eq(taskRuns.taskId, task.id))).filter((r) => r.status === 'queued');
    expect(open.map((r) => r.trigger)).toEqual(['wake']);
  });

  it('PUT accepts only the five statuses; scheduled needs a future time; a waiting task cannot lose its alarm', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    for (const status of ['paused', 'on_hold', 'pending', 'archived']) {
      const res = await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { status } });
      expect(res.status, status).toBe(200);
      expect(res.body.task.status).toBe(status);
    }
    const bad = await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { status: 'completed' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('status');
    const noTime = await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { status: 'scheduled' } });
    expect(noTime.status).toBe(400);
    expect(noTime.body.error).toContain('scheduledFor');
    const at = new Date(Date.now() + hour).toISOString();
    const scheduled = await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { status: 'scheduled', scheduledFor: at, approvalMode: 'manual' } });
    expect(scheduled.body.task).toMatchObject({ status: 'scheduled', scheduledFor: at, approvalMode: 'manual' });
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key })).body.task.effectiveApprovalMode).toBe('manual');

    // The database holds the guarantee too: no waiting status without an active alarm.
    await expect(db().update(tasks).set({ status: 'awaiting_user_input' }).where(eq(tasks.id, task.id))).rejects.toThrow();
  });

  it('modelTier changes until a run has started, then 409', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    const changed = await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { modelTier: 'high' } });
    expect(changed.body.task.modelTier).toBe('high');
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { modelTier: 'big' } })).status).toBe(400);
    const p = ProcessResponse.parse((await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'go' } })).body);
    // Queued is not started: the tier may still change.
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { modelTier: 'low' } })).status).toBe(200);
    await db().update(taskRuns).set({ status: 'running', startedAt: new Date() }).where(eq(taskRuns.id, p.process.executionId!));
    const fixed = await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { modelTier: 'ultra' } });
    expect(fixed.status).toBe(409);
    expect(fixed.body.error).toContain('modelTier');
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'PUT', body: { modelTier: 'low' } })).status).toBe(200);
  });
});

describe('tasks: activities, feedback, delete, kill switch', () => {
  it('pages activities newest first with a cursor (limit ≤ 100)', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    for (let i = 0; i < 5; i++) await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: `m${i}` } });
    const p1 = ListActivitiesResponse.parse((await call(app(), `/tasks/${task.id}/activities?limit=2`, { key: a.key })).body);
    expect(p1.activities.map((x) => x.message?.content)).toEqual(['m4', 'm3']);
    expect(p1.hasMore).toBe(true);
    const p2 = ListActivitiesResponse.parse((await call(app(), `/tasks/${task.id}/activities?limit=2&before=${p1.cursor}`, { key: a.key })).body);
    expect(p2.activities.map((x) => x.message?.content)).toEqual(['m2', 'm1']);
    const p3 = ListActivitiesResponse.parse((await call(app(), `/tasks/${task.id}/activities?limit=2&before=${p2.cursor}`, { key: a.key })).body);
    expect(p3).toMatchObject({ hasMore: false, cursor: null });
    expect(p3.activities.map((x) => x.message?.content)).toEqual(['m0']);
    const tooMany = await call(app(), `/tasks/${task.id}/activities?limit=101`, { key: a.key });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toContain('limit');
    const foreign = await call(app(), `/tasks/${task.id}/activities?before=abc`, { key: a.key });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toContain('before');
  });

  it('feedback: like, dislike, null; anything else is 400', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    const like = await call(app(), `/tasks/${task.id}/feedback`, { key: a.key, body: { status: 'like' } });
    expect(like.body).toMatchObject({ ok: true, feedback: { success: true, taskId: task.id, status: 'like' } });
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key })).body.task.feedback).toBe('like');
    expect((await call(app(), `/tasks/${task.id}/feedback`, { key: a.key, body: { status: null } })).body.feedback.status).toBeNull();
    const bad = await call(app(), `/tasks/${task.id}/feedback`, { key: a.key, body: { status: 'meh' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('status');
  });

  it('delete removes the task, its activity, its subtasks and its runs', async () => {
    const { a } = await setup();
    const task = await newTask(a);
    await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'go' } });
    const child = await newTask(a, { title: 'Child' });
    await db().update(tasks).set({ parentTaskId: task.id }).where(eq(tasks.id, child.id));
    const res = await call(app(), `/tasks/${task.id}`, { key: a.key, method: 'DELETE' });
    expect(res.body).toEqual({ ok: true, task: { id: task.id } });
    expect(await db().select().from(tasks).where(eq(tasks.id, child.id))).toEqual([]);
    expect(await db().select().from(taskActivities).where(eq(taskActivities.taskId, task.id))).toEqual([]);
    expect(await db().select().from(taskRuns).where(eq(taskRuns.taskId, task.id))).toEqual([]);
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key })).status).toBe(404);
  });

  it('the kill switch refuses create and process with 423, and nothing else', async () => {
    const { acct, a } = await setup();
    const task = await newTask(a);
    await setKillSwitch(db(), acct.accountId, true);
    const create = await call(app(), '/tasks', { key: a.key, body: { title: 'T', assistant: a.assistantId } });
    expect(create.status).toBe(423);
    expect(create.body.error_code).toBe('KILL_SWITCH_ENGAGED');
    const process = await call(app(), `/tasks/${task.id}/process`, { key: a.key, body: { message: 'go' } });
    expect(process.status).toBe(423);
    expect((await call(app(), `/tasks/${task.id}`, { key: a.key })).status).toBe(200);
    expect((await call(app(), `/tasks/${task.id}/stop`, { key: a.key, method: 'POST' })).status).toBe(200);
    await setKillSwitch(db(), acct.accountId, false);
    expect((await call(app(), '/tasks', { key: a.key, body: { title: 'T', assistant: a.assistantId } })).status).toBe(201);
  });
});
