import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notices, taskActivities, taskRuns, tasks } from '@/db/schema';
import { setKillSwitch } from '@/server/accounts/service';
import { endRun } from '@/server/agent/runtime/end-run';
import { startRun } from '@/server/agent/runtime/start-run';
import { sweepTaskHolds } from '@/server/tasks/holds';
import { attachContactReply } from '@/server/tasks/inbound-reply';
import { queueRun } from '@/server/tasks/runs';
import { strangerTag } from '@/server/tasks/strangers';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Issue 46, second part: the task statuses the system enters on its own, each with its way in and
 * its way out through the transition table. `paused` with a hold while the owner may not act,
 * `message_received` for a conversation whose message no run may read (a frozen account), and
 * `abandoned` for a failure nobody took up.
 */
const app = useTestServer();
const db = () => app().database.db;

async function world() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: `Held ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}` } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  return { acct, u, key, assistantId: hired.body.assistant.id as string };
}

async function newTask(w: Awaited<ReturnType<typeof world>>, title: string) {
  const res = await call(app(), '/tasks', { key: w.key, body: { title, assistant: w.assistantId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task.id as string;
}

const row = async (id: string) => (await db().select().from(tasks).where(eq(tasks.id, id)))[0]!;
const runsOf = (id: string) => db().select().from(taskRuns).where(eq(taskRuns.taskId, id)).orderBy(taskRuns.createdAt);
const setStatus = (w: Awaited<ReturnType<typeof world>>, status: string) => call(app(), `/users/${w.u.id}`, { key: w.acct.key, method: 'PUT', body: { status } });

describe('paused, held by the system', () => {
  it('a run about to start for a suspended owner pauses the task (systemHold owner_inactive) and the sweep resumes it once the owner is active', async () => {
    const w = await world();
    const id = await newTask(w, 'Book the venue');
    const run = await db().transaction(async (tx) => queueRun(tx, await row(id), 'process'));
    expect((await setStatus(w, 'suspended')).status).toBe(200);

    const started = await startRun(db(), run.id);
    expect(started).toMatchObject({ go: false });
    expect(await row(id)).toMatchObject({ status: 'paused', systemHold: 'owner_inactive' });
    expect((await runsOf(id))[0]).toMatchObject({ status: 'cancelled', error: 'owner_inactive' });
    const shown = await call(app(), `/tasks/${id}`, { key: w.acct.key });
    expect(shown.body.task).toMatchObject({ status: 'paused', systemHold: 'owner_inactive' });

    // Still suspended: the hold stays.
    expect((await sweepTaskHolds(db())).released).toBe(0);
    expect(await row(id)).toMatchObject({ status: 'paused' });

    expect((await setStatus(w, 'active')).status).toBe(200);
    const swept = await sweepTaskHolds(db());
    expect(swept.released).toBeGreaterThanOrEqual(1);
    expect(await row(id)).toMatchObject({ status: 'pending', systemHold: null });
    expect((await runsOf(id)).map((r) => [r.status, r.trigger])).toEqual([
      ['cancelled', 'process'],
      ['queued', 'wake'],
    ]);
  });

  it('a run already going when its owner is suspended stops at its next step and holds the task the same way, never leaving it executing', async () => {
    const w = await world();
    const id = await newTask(w, 'Compare quotes');
    const run = await db().transaction(async (tx) => queueRun(tx, await row(id), 'process'));
    expect(await startRun(db(), run.id)).toMatchObject({ go: true });
    expect(await row(id)).toMatchObject({ status: 'executing' });
    expect((await setStatus(w, 'suspended')).status).toBe(200);
    // What the run's next step answers once it finds the owner may not act (task-host.ts open).
    expect(await endRun(db(), run.id, { kind: 'stopped', reason: 'the task’s owner can no longer act' }, null, null)).toEqual({ ended: true });
    expect(await row(id)).toMatchObject({ status: 'paused', systemHold: 'owner_inactive' });
    expect((await runsOf(id))[0]).toMatchObject({ status: 'cancelled', error: 'owner_inactive' });
    expect((await setStatus(w, 'active')).status).toBe(200);
    await sweepTaskHolds(db());
    expect(await row(id)).toMatchObject({ status: 'pending', systemHold: null });
  });

  it('a pause the user set is theirs: no hold is shown, and the sweep never lifts it', async () => {
    const w = await world();
    const id = await newTask(w, 'Wait for me');
    const put = await call(app(), `/tasks/${id}`, { key: w.key, method: 'PUT', body: { status: 'paused' } });
    expect(put.body.task).toMatchObject({ status: 'paused', systemHold: null });
    await sweepTaskHolds(db());
    expect(await row(id)).toMatchObject({ status: 'paused', systemHold: null });
    expect(await runsOf(id)).toEqual([]);
  });
});

describe('message_received', () => {
  it('a message reaching a conversation at rest in a frozen account leaves it message_received; released, the sweep reopens it with a run', async () => {
    const w = await world();
    const id = await newTask(w, 'Conversation with +15550001111');
    await db()
      .update(tasks)
      .set({ status: 'conversation', tags: [strangerTag(w.assistantId, '+15550001111')] })
      .where(eq(tasks.id, id));
    await setKillSwitch(db(), w.acct.accountId, true);

    const attached = await db().transaction(async (tx) => {
      const [task] = await tx.select().from(tasks).where(eq(tasks.id, id)).for('update');
      return attachContactReply(tx, task!, { platform: 'sms', content: 'SMS from +15550001111\n\nAre you still there?' });
    });
    expect(attached).toMatchObject({ runId: null, woke: false, reason: 'account_frozen' });
    expect(await row(id)).toMatchObject({ status: 'message_received' });
    expect((await call(app(), `/tasks?status=message_received`, { key: w.acct.key })).body.tasks.map((t: { id: string }) => t.id)).toEqual([id]);

    // Frozen: the sweep leaves it.
    expect((await sweepTaskHolds(db())).reopened).toBe(0);
    expect(await runsOf(id)).toEqual([]);

    await setKillSwitch(db(), w.acct.accountId, false);
    expect((await sweepTaskHolds(db())).reopened).toBeGreaterThanOrEqual(1);
    expect(await row(id)).toMatchObject({ status: 'pending' });
    expect((await runsOf(id)).map((r) => [r.status, r.trigger])).toEqual([['queued', 'reply']]);
    const kept = await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, id), eq(taskActivities.kind, 'contact')));
    expect(kept.map((a) => a.content)).toEqual(['SMS from +15550001111\n\nAre you still there?']);
  });
});

describe('abandoned', () => {
  it('a failure untouched for 30 days is given up with a notice and a note; a younger one stays; a message reopens it', async () => {
    const w = await world();
    const old = await newTask(w, 'Old failure');
    const young = await newTask(w, 'Recent failure');
    const day = 86_400_000;
    await db().update(tasks).set({ status: 'error', updatedAt: new Date(Date.now() - 31 * day) }).where(eq(tasks.id, old));
    await db().update(tasks).set({ status: 'error', updatedAt: new Date(Date.now() - 29 * day) }).where(eq(tasks.id, young));

    const swept = await sweepTaskHolds(db());
    expect(swept.abandoned).toBeGreaterThanOrEqual(1);
    expect(await row(old)).toMatchObject({ status: 'abandoned' });
    expect(await row(young)).toMatchObject({ status: 'error' });
    const told = await db().select().from(notices).where(and(eq(notices.userId, w.u.id), eq(notices.taskId, old)));
    expect(told).toEqual([expect.objectContaining({ kind: 'task_failed', subject: 'Task given up: Old failure' })]);
    const feed = await call(app(), `/tasks/${old}`, { key: w.key });
    expect(feed.body.task.status).toBe('abandoned');
    expect(feed.body.task.recentActivity.map((a: { message: { content: string } | null }) => a.message?.content).join('\n')).toMatch(/Given up by Steward/);

    // A second pass gives nothing up twice.
    await sweepTaskHolds(db());
    expect(await db().select().from(notices).where(eq(notices.taskId, old))).toHaveLength(1);

    const reopened = await call(app(), `/tasks/${old}/process`, { key: w.key, body: { message: 'Try again please' } });
    expect(reopened.status, JSON.stringify(reopened.body)).toBe(200);
    expect((await row(old)).status).not.toBe('abandoned');
  });
});
