import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskActivities } from '@/db/schema';
import { setKillSwitch } from '@/server/accounts/service';
import { startExecutor } from '@/server/executor/executor';
import { call, newAccount, type AccountFixture } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';
import { signingKey } from '../executor/harness';
import { useRunHarness } from './run-harness';

/**
 * How a run ends when the world moves under it: a message the user sends while the model is
 * answering is always read by a later model call (the run goes on, or the next run reads it), and
 * an account frozen by its kill switch stops the run at its next step boundary with the task on
 * hold. The production task-run function, through the built-in executor, against the scripted model.
 */
const h = useRunHarness();
const { app, db, person, startTask, taskRow, ended, runsOf } = h;
const llm = () => h.state.llm;

const activitiesOf = async (taskId: string) =>
  (await db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId)).orderBy(taskActivities.createdAt, taskActivities.id)).map((a) =>
    a.kind === 'tool' ? ['tool', a.toolName, a.toolOutput] : [a.kind, a.content],
  );
const lastMessages = (r: ModelRequest, n: number) => r.messages.slice(-n).map((m) => [m.role, m.content]);

async function send(p: Awaited<ReturnType<typeof person>>, taskId: string, message: string) {
  return call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message } });
}

async function freeze(acct: AccountFixture, engaged: boolean) {
  await setKillSwitch(db(), acct.accountId, engaged);
}

describe('a message that arrives while the model answers', () => {
  it('after a plain-text answer: the run does not end, the next call reads the answer then the message', async () => {
    const a = await person(await newAccount(app()));
    const held = llm().hold();
    llm().enqueue(held.script, { text: 'On Friday: C or D.' });
    const { taskId, runId } = await startTask(a, {}, 'A table on Thursday');
    await held.arrived;

    const sent = await send(a, taskId, 'Friday works too');
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.process).toMatchObject({ executionId: runId, message: 'Message sent to the running task' });
    held.release({ text: 'On Thursday: A or B.' });

    expect(await ended(runId)).toMatchObject({ status: 'finished', inputTokens: 20, outputTokens: 10 });
    expect(llm().requests).toHaveLength(2);
    expect(lastMessages(llm().requests[1], 3)).toEqual([
      ['user', 'A table on Thursday'],
      ['assistant', 'On Thursday: A or B.'],
      ['user', 'Friday works too'],
    ]);
    expect(await activitiesOf(taskId)).toEqual([
      ['user', 'A table on Thursday'],
      ['assistant', 'On Thursday: A or B.'],
      ['user', 'Friday works too'],
      ['assistant', 'On Friday: C or D.'],
    ]);
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input', readyForReview: true });
    expect(await runsOf(taskId)).toHaveLength(1);
  });

  it('a run-ending tool call decided before the message is not carried out: the model reads the message and decides again', async () => {
    const a = await person(await newAccount(app()));
    const held = llm().hold();
    llm().enqueue(held.script, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Booked for Friday' } }] });
    const { taskId, runId } = await startTask(a);
    await held.arrived;
    expect((await send(a, taskId, 'Make it Friday instead')).status).toBe(200);
    held.release({ text: 'Booking Thursday.', toolCalls: [{ name: 'complete_task', arguments: { summary: 'Booked for Thursday' } }] });

    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed', summary: 'Booked for Friday' });
    expect(llm().requests).toHaveLength(2);
    const second = JSON.stringify(llm().requests[1].messages);
    expect(second).toContain('Make it Friday instead');
    expect(second).toContain('not carried out');
    const acts = await activitiesOf(taskId);
    expect(acts.filter((x) => x[0] === 'tool')).toEqual([
      ['tool', 'complete_task', expect.objectContaining({ notDone: true })],
      ['tool', 'complete_task', { completed: true }],
    ]);
    expect(await runsOf(taskId)).toHaveLength(1);
  });

  it('on the run’s last allowed model call: the run ends and a new run reads the message', async () => {
    const a = await person(await newAccount(app()));
    const held = llm().hold();
    let n = 0;
    llm().setFallback((r) => (++n < 25 ? { toolCalls: [{ name: 'update_plan', arguments: { items: [{ text: `step ${n}`, status: 'done' }] } }] } : held.script(r)));
    const { taskId, runId } = await startTask(a);
    await held.arrived;
    expect((await send(a, taskId, 'Also add dessert')).status).toBe(200);
    llm().setFallback({ text: 'Dessert added.' });
    held.release({ text: 'All 24 steps done.' });

    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const runs = await h.until(async () => {
      const rows = await runsOf(taskId);
      return rows.length === 2 && rows[1].status === 'finished' ? rows : null;
    }, 30_000);
    expect(runs[1]).toMatchObject({ trigger: 'process' });
    expect(llm().requests).toHaveLength(26);
    expect(lastMessages(llm().requests[25], 2)).toEqual([
      ['assistant', 'All 24 steps done.'],
      ['user', 'Also add dessert'],
    ]);
    expect((await activitiesOf(taskId)).slice(-3)).toEqual([
      ['assistant', 'All 24 steps done.'],
      ['user', 'Also add dessert'],
      ['assistant', 'Dessert added.'],
    ]);
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input', readyForReview: true });
  }, 60_000);
});

describe('the kill switch inside runs', () => {
  it('engaged during a model call: the tool call it asked for is not made, the task goes on hold, and a process call resumes it once released', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const held = llm().hold();
    llm().enqueue(held.script);
    const { taskId, runId } = await startTask(a);
    await held.arrived;
    await freeze(acct, true);
    held.release({ toolCalls: [{ name: 'save_memory', arguments: { content: 'Saved while frozen' } }] });

    expect(await ended(runId)).toMatchObject({ status: 'cancelled', error: 'KILL_SWITCH_ENGAGED' });
    expect(await taskRow(taskId)).toMatchObject({ status: 'on_hold' });
    const acts = await activitiesOf(taskId);
    expect(acts).toEqual([['assistant', expect.stringMatching(/frozen[\s\S]*on hold[\s\S]*process/)]]);
    expect(llm().requests).toHaveLength(1);
    expect((await call(app(), '/memories', { key: a.key })).body.memories).toEqual([]);
    const shown = await call(app(), `/tasks/${taskId}`, { key: a.key });
    expect(shown.body.task.status).toBe('on_hold');

    expect((await send(a, taskId, 'Go on')).status).toBe(423);
    await freeze(acct, false);
    llm().enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Resumed and done' } }] });
    const resumed = await send(a, taskId, 'Go on');
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(await ended(resumed.body.process.executionId)).toMatchObject({ status: 'finished' });
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed', summary: 'Resumed and done' });
    expect(lastMessages(llm().requests[1], 1)).toEqual([['user', 'Go on']]);
  });

  it('a queued run that starts while the account is frozen makes no model call and holds the task', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    // The executor is down while the run is queued and the account is frozen meanwhile.
    await h.state.executor.stop();
    const { taskId, runId } = await startTask(a, {}, 'Start please');
    await freeze(acct, true);
    const databaseUrl = app().database.pool.options.connectionString as string;
    h.state.executor = await startExecutor({ db: db(), databaseUrl, signingKey, idleMs: 100 });

    expect(await ended(runId)).toMatchObject({ status: 'cancelled', error: 'KILL_SWITCH_ENGAGED' });
    expect(llm().requests).toHaveLength(0);
    expect(await taskRow(taskId)).toMatchObject({ status: 'on_hold' });
    expect((await activitiesOf(taskId)).map((x) => x[0])).toEqual(['user', 'assistant']);
    await freeze(acct, false);
  });
});
