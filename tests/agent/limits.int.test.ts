import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runSlotWaits, taskActivities } from '@/db/schema';
import { setAccountLimits } from '@/server/accounts/limits';
import { call, newAccount } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';
import { useRunHarness } from './run-harness';

/**
 * Limits that hold under concurrency (spec 5, Limits): a run's model calls and tool calls, and
 * how many runs of one user run at once. The production task-run function through the built-in
 * executor, against the scripted model; limits set low per account (set-limits' overrides).
 */
const h = useRunHarness();
const { app, db, person, startTask, createTask, taskRow, ended, runsOf, until } = h;
const llm = () => h.state.llm;

const activitiesOf = (taskId: string) => db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId)).orderBy(taskActivities.createdAt, taskActivities.id);
const plan = (text: string) => ({ name: 'update_plan', arguments: { items: [{ text, status: 'done' }] } });

describe('per run', () => {
  it('stops at the model-call limit with an activity naming it; a message resumes the task', async () => {
    const acct = await newAccount(app());
    await setAccountLimits(db(), acct.accountId, { runMaxModelCalls: 3 });
    const a = await person(acct);
    let n = 0;
    llm().setFallback(() => ({ toolCalls: [plan(`step ${++n}`)] }));
    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    expect(llm().requests).toHaveLength(3);
    const acts = await activitiesOf(taskId);
    expect(acts.filter((x) => x.kind === 'tool')).toHaveLength(3);
    expect(acts.at(-1)).toMatchObject({ kind: 'assistant', content: expect.stringContaining('3 model calls') });
    expect(acts.at(-1)!.content).toContain('STEWARD_RUN_MAX_MODEL_CALLS');
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input', readyForReview: false, alarmStatus: 'set' });

    // Resumable: the user's message starts a new run, which has its own three calls.
    llm().setFallback(null);
    llm().enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Done after all' } }] });
    const again = await call(app(), `/tasks/${taskId}/process`, { key: a.key, body: { message: 'Go on' } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await ended(again.body.process.executionId)).toMatchObject({ status: 'finished' });
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed' });
  });

  it('stops at the tool-call limit, counting every call of a step; the calls past it are not run', async () => {
    const acct = await newAccount(app());
    await setAccountLimits(db(), acct.accountId, { runMaxToolCalls: 4 });
    const a = await person(acct);
    let n = 0;
    llm().setFallback(() => ({ toolCalls: [plan(`a${++n}`), plan(`b${n}`), plan(`c${n}`)] }));
    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    expect(llm().requests).toHaveLength(2);
    const acts = await activitiesOf(taskId);
    expect(acts.filter((x) => x.kind === 'tool')).toHaveLength(4);
    expect(acts.at(-1)).toMatchObject({ kind: 'assistant', content: expect.stringContaining('4 tool calls') });
    expect(acts.at(-1)!.content).toContain('STEWARD_RUN_MAX_TOOL_CALLS');
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input', alarmStatus: 'set' });
  });

  it('the deployment’s default comes from the environment (STEWARD_RUN_MAX_MODEL_CALLS)', async () => {
    process.env.STEWARD_RUN_MAX_MODEL_CALLS = '2';
    try {
      const a = await person(await newAccount(app()));
      llm().setFallback(() => ({ toolCalls: [plan('again')] }));
      const { runId } = await startTask(a);
      expect(await ended(runId)).toMatchObject({ status: 'finished' });
      expect(llm().requests).toHaveLength(2);
    } finally {
      delete process.env.STEWARD_RUN_MAX_MODEL_CALLS;
    }
  });
});

describe('per user', () => {
  it('with a limit of 2, six tasks processed at once never run more than 2 at a time, all finish, oldest first; another user is not held back', async () => {
    const acct = await newAccount(app());
    await setAccountLimits(db(), acct.accountId, { userMaxConcurrentRuns: 2 });
    const a = await person(acct);
    const b = await person(acct);

    // A's calls are held until the test lets each go; B's are answered at once.
    let inFlight = 0;
    let peak = 0;
    const order: string[] = [];
    const held: Array<() => void> = [];
    llm().setFallback(async (r: ModelRequest) => {
      const text = JSON.stringify(r.messages);
      if (text.includes('Task of B')) return { text: 'B is done' };
      inFlight++;
      peak = Math.max(peak, inFlight);
      order.push(/Task of A (\d)/.exec(text)?.[1] ?? '?');
      await new Promise<void>((release) => held.push(release));
      inFlight--;
      return { text: 'A is done' };
    });

    const tasks = [];
    for (let i = 1; i <= 6; i++) tasks.push(await createTask(a, { title: `Task of A ${i}` }));
    // Processed at once; the runs are queued in this order (the oldest first).
    const processed = await Promise.all(tasks.map((id) => call(app(), `/tasks/${id}/process`, { key: a.key, body: {} })));
    for (const p of processed) expect(p.status, JSON.stringify(p.body)).toBe(200);
    const runIds = processed.map((p) => p.body.process.executionId as string);

    // Two of A's calls are in flight and held; the other four runs wait for a slot, noted in line.
    await until(async () => inFlight === 2 && (await db().select().from(runSlotWaits)).length === 4, 15_000);

    // B's run is not held back by A's queue.
    const started = Date.now();
    const bTask = await createTask(b, { title: 'Task of B' });
    const bRun = await call(app(), `/tasks/${bTask}/process`, { key: b.key, body: {} });
    expect(await ended(bRun.body.process.executionId)).toMatchObject({ status: 'finished' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(inFlight).toBe(2);

    // One call at a time is let go: each freed slot goes to the oldest run still waiting, whose call arrives next.
    for (let released = 0; released < 6; released++) {
      await until(async () => held.length > 0, 15_000);
      held.shift()!();
      await until(async () => order.length >= Math.min(6, released + 3), 40_000);
    }
    for (const runId of runIds) expect(await ended(runId)).toMatchObject({ status: 'finished' });
    expect(peak).toBe(2);
    for (const id of tasks) expect((await taskRow(id)).status).toBe('awaiting_user_input');
    // Past the first two (whichever reached its start first), slots went to the oldest waiting run first.
    const created = new Map<string, number>();
    for (const [i, id] of tasks.entries()) {
      const [run] = await runsOf(id);
      created.set(String(i + 1), run.createdAt.getTime());
    }
    const later = order.slice(2);
    expect(later).toEqual([...later].sort((x, y) => created.get(x)! - created.get(y)!));
    expect(await db().select().from(runSlotWaits)).toHaveLength(0);
    for (const id of tasks) expect(await runsOf(id)).toHaveLength(1);
  }, 120_000);
});
