import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '@/db/schema';
import { registerHandoffBrowser, type HandoffBrowser } from '@/server/workspace/handoffs/browser-seam';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from './run-harness';

/*
 * Task statuses with a way in and a way out (spec 2, Task statuses), each reached by its event:
 * - deferred_access: the user deferred the handoff the task asked for; the run told so rests there
 *   until the deferral ends (its alarm) or the user writes;
 * - failed_access: the user declined it (or let it expire); the task rests there until they act;
 * - handled_by_other: PUT /tasks/{id} with handledBy (another assistant or a person);
 * - conversation: a conversation with someone that the run answered, at rest until a new message.
 */
const h = useRunHarness();
let saved: HandoffBrowser | null = null;
beforeAll(() => void (saved = registerHandoffBrowser(null)));
afterAll(() => void registerHandoffBrowser(saved));
type Person = Awaited<ReturnType<typeof h.person>>;

const LOGIN = { actionType: 'login', targetUrl: 'https://shop.example.org/sign-in', prompt: 'Please sign in to the shop' };

async function askForHandoff(p: Person, title: string) {
  h.state.llm.enqueue({ toolCalls: [{ name: 'request_handoff', arguments: LOGIN }] });
  const { taskId, runId } = await h.startTask(p, { title });
  expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
  const active = await call(h.app(), '/workspace/handoff/active', { key: p.key });
  return { taskId, handoffId: active.body.handoffs.find((x: { taskId: string }) => x.taskId === taskId).id as string };
}

/** Waits until the task's `count`-th run ended, then the task row. */
async function afterRun(taskId: string, count: number) {
  await h.until(async () => {
    const rows = await h.runsOf(taskId);
    return rows.length === count && ['finished', 'failed'].includes(rows[count - 1].status) ? rows : null;
  }, 30_000);
  return h.taskRow(taskId);
}

const process_ = async (p: Person, taskId: string, message: string) => {
  const res = await call(h.app(), `/tasks/${taskId}/process`, { key: p.key, body: { message } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.process.executionId as string;
};

describe('access statuses', () => {
  it('a deferred handoff: the run is told, the task rests in deferred_access until deferredUntil, and the alarm or a message wakes it', async () => {
    const a = await h.person(await newAccount(h.app()));
    const { taskId, handoffId } = await askForHandoff(a, 'Buy the tickets');
    h.state.llm.enqueue({ text: 'I will ask again after lunch.' });
    const deferred = await call(h.app(), `/workspace/handoff/${handoffId}/defer`, { key: a.key, body: { message: 'After lunch', deferMinutes: 90 } });
    expect(deferred.status, JSON.stringify(deferred.body)).toBe(200);
    const resting = await afterRun(taskId, 2);
    expect(resting).toMatchObject({ status: 'deferred_access', alarmStatus: 'set', accessHold: null });
    expect(resting.alarmWakeAt!.toISOString()).toBe(deferred.body.deferredUntil);
    const shown = (await call(h.app(), `/tasks/${taskId}`, { key: a.key })).body.task;
    expect(shown).toMatchObject({ status: 'deferred_access', alarm: { wakeAt: deferred.body.deferredUntil, status: 'set' } });

    // The deferral ends: the alarm wakes it for a run.
    await h.db().update(tasks).set({ alarmWakeAt: new Date(Date.now() - 1_000) }).where(eq(tasks.id, taskId));
    h.state.llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Bought' } }] });
    await h.state.wakeupsDue();
    expect(await afterRun(taskId, 3)).toMatchObject({ status: 'completed' });
    expect((await h.runsOf(taskId))[2].trigger).toBe('alarm');
  });

  it('a declined handoff: the run is told, the task rests in failed_access, and the user’s message resumes it', async () => {
    const a = await h.person(await newAccount(h.app()));
    const { taskId, handoffId } = await askForHandoff(a, 'Renew the parking permit');
    h.state.llm.enqueue({ text: 'I cannot continue without signing in.' });
    expect((await call(h.app(), `/workspace/handoff/${handoffId}/decline`, { key: a.key, body: {} })).status).toBe(200);
    const stopped = await afterRun(taskId, 2);
    expect(stopped).toMatchObject({ status: 'failed_access', accessHold: null });
    expect(stopped.alarmStatus).not.toBe('set');

    h.state.llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Renewed by phone' } }] });
    const runId = await process_(a, taskId, 'I renewed it by phone, you can close this');
    expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
    expect(await h.taskRow(taskId)).toMatchObject({ status: 'completed' });
  });
});

describe('handled_by_other', () => {
  it('PUT handledBy hands the task to another assistant or a person; the owner’s message reopens it', async () => {
    const a = await h.person(await newAccount(h.app()));
    const second = await call(h.app(), `/users/${a.id}/assistants`, { key: a.key, body: { name: 'Grace' } });
    const taskId = await h.createTask(a, { title: 'Plan the offsite' });
    const handed = await call(h.app(), `/tasks/${taskId}`, { key: a.key, method: 'PUT', body: { handledBy: second.body.assistant.id } });
    expect(handed.status, JSON.stringify(handed.body)).toBe(200);
    expect(handed.body.task).toMatchObject({ status: 'handled_by_other', handledBy: second.body.assistant.id });

    const own = await call(h.app(), `/tasks/${taskId}`, { key: a.key, method: 'PUT', body: { handledBy: a.assistantId } });
    expect(own.status).toBe(409);
    h.state.llm.enqueue({ text: 'Back on it.' });
    const runId = await process_(a, taskId, 'Grace is away, please take it back');
    expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
    expect((await h.taskRow(taskId)).status).toBe('awaiting_user_input');

    const person = await call(h.app(), `/tasks/${taskId}`, { key: a.key, method: 'PUT', body: { handledBy: 'Colleague@Example.com' } });
    expect(person.body.task).toMatchObject({ status: 'handled_by_other', handledBy: 'colleague@example.com' });

    const other = await h.createTask(a, { title: 'Another' });
    const bad = await call(h.app(), `/tasks/${other}`, { key: a.key, method: 'PUT', body: { handledBy: 'not an address' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('handledBy');
    const both = await call(h.app(), `/tasks/${other}`, { key: a.key, method: 'PUT', body: { handledBy: 'x@example.com', status: 'paused' } });
    expect(both.status).toBe(400);
    expect(both.body.error).toContain('handledBy');
  });
});
