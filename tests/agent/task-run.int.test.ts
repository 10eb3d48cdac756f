import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { taskActivities } from '@/db/schema';
import { call, newAccount } from '../helpers/client';
import type { ScriptedModel } from '../helpers/scripted-model';
import { MODEL, useRunHarness } from './run-harness';

/**
 * Task runs end to end: the REST API queues a run, server/compose/engine-handovers.ts sends its event once the
 * transaction commits, the built-in executor drives the production task-run function through
 * /api/inngest, and the function talks to a scripted OpenAI-compatible server over real HTTP.
 */
const h = useRunHarness();
const { app, db, person, startTask, taskRow, ended } = h;
let llm: ScriptedModel;
beforeAll(() => {
  llm = h.state.llm;
});

async function remember(p: Awaited<ReturnType<typeof person>>, content: string) {
  const res = await call(app(), '/memories', { key: p.key, body: { content } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

const activitiesOf = (taskId: string) => db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId)).orderBy(taskActivities.createdAt);
const text = (messages: any[]) => messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

describe('a task run with a real model', () => {
  it('sends the tier’s model, the system message, the user’s memories (not another user’s) and the task; update_plan then complete_task completes it', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    await remember(a, 'Prefers a window seat');
    await remember(b, 'Secret of the other user');
    llm.enqueue(
      { toolCalls: [{ name: 'update_plan', arguments: { items: [{ text: 'Find a restaurant', status: 'done' }, { text: 'Book', status: 'pending' }] } }] },
      { text: 'Booked.', toolCalls: [{ name: 'complete_task', arguments: { summary: 'Table for four at 8 pm' } }], usage: { promptTokens: 30, completionTokens: 7, cachedTokens: 4 } },
    );
    const { taskId, runId } = await startTask(a, { description: 'For four people\nat 8 pm' }, 'Somewhere quiet please');

    const run = await ended(runId);
    expect(run).toMatchObject({ status: 'finished', model: MODEL, error: null, inputTokens: 10 + 26, outputTokens: 5 + 7, cacheReadTokens: 4 });
    expect(run.startedAt).not.toBeNull();
    const task = await taskRow(taskId);
    expect(task).toMatchObject({ status: 'completed', summary: 'Table for four at 8 pm', plan: [{ title: 'Find a restaurant', status: 'done' }, { title: 'Book', status: 'pending' }] });
    expect(task.completedAt).not.toBeNull();

    expect(llm.requests).toHaveLength(2);
    const first = llm.requests[0];
    expect(first.model).toBe(MODEL);
    expect(first.messages[0].role).toBe('system');
    expect(first.messages[0].content).toContain('You are Ada');
    expect(first.messages[0].content).toContain(a.email);
    expect(first.messages[0].content).toContain('Europe/Paris');
    expect(first.messages[0].content).toContain('Monday 09:00-17:00');
    expect(first.messages[0].content).toContain('complete_task');
    const sent = text(first.messages);
    expect(sent).toContain('Prefers a window seat');
    expect(sent).not.toContain('Secret of the other user');
    expect(sent).toContain('Task: Book a table\n\nFor four people\nat 8 pm');
    expect(first.messages.at(-1)).toEqual({ role: 'user', content: 'Somewhere quiet please' });
    expect(first.tools!.map((t: any) => t.function.name).sort()).toEqual(
      [
        'ask_user',
        'cancel_calendar_event',
        'browser_act',
        'browser_open',
        'browser_read',
        'complete_task',
        'create_calendar_event',
        'create_subtasks',
        'create_task',
        'file_delete',
        'file_write',
        'forget_memory',
        'free_busy',
        'job_start',
        'job_status',
        'list_events',
        'place_call',
        'read_file',
        'read_mail',
        'request_handoff',
        'save_contact',
        'save_memory',
        'save_to_files',
        'search_contacts',
        'search_mail',
        'search_memories',
        'send_email',
        'send_message',
        'set_alarm',
        'shell_run',
        'update_calendar_event',
        'update_memory',
        'update_plan',
        'wait_for_reply',
      ].sort(),
    );

    // The second call replays the first tool call and its (untrusted) result.
    const second = llm.requests[1].messages;
    const replayed = second.find((m: any) => m.role === 'assistant' && m.tool_calls);
    expect(replayed.tool_calls[0].function.name).toBe('update_plan');
    const result = second.find((m: any) => m.role === 'tool');
    expect(result.tool_call_id).toBe(replayed.tool_calls[0].id);
    expect(result.content).toContain('<untrusted-data source="tool:update_plan">');

    const acts = await activitiesOf(taskId);
    expect(acts.map((x) => [x.kind, x.toolName ?? x.content])).toEqual([
      ['user', 'Somewhere quiet please'],
      ['tool', 'update_plan'],
      ['assistant', 'Booked.'],
      ['tool', 'complete_task'],
    ]);
    expect(acts[3]).toMatchObject({ runId, toolInput: { summary: 'Table for four at 8 pm' }, toolOutput: { completed: true } });
  });

  it('a plain-text answer leaves the task awaiting the user, ready for review, with a 24-hour follow-up alarm', async () => {
    const a = await person(await newAccount(app()));
    llm.enqueue({ text: 'Here are three options: A, B and C.' });
    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished', inputTokens: 10, outputTokens: 5 });
    const task = await taskRow(taskId);
    expect(task).toMatchObject({ status: 'awaiting_user_input', readyForReview: true, alarmStatus: 'set' });
    expect(Math.abs(task.alarmWakeAt!.getTime() - (Date.now() + 24 * 3_600_000))).toBeLessThan(5 * 60_000);
    const got = await call(app(), `/tasks/${taskId}`, { key: a.key });
    expect(got.body.task).toMatchObject({ status: 'awaiting_user_input', readyForReview: true, alarm: { status: 'set' } });
    expect((await activitiesOf(taskId)).map((x) => [x.kind, x.content])).toEqual([['assistant', 'Here are three options: A, B and C.']]);
  });

  it('save_memory stores a memory of the user with source system, authored by the task’s assistant, visible to the user and no one else', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const b = await person(acct);
    llm.enqueue({ toolCalls: [{ name: 'save_memory', arguments: { content: 'Prefers window seats', tags: ['general'] } }] });
    llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Noted.' } }] });
    const { runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const mine = await call(app(), '/memories', { key: a.key });
    expect(mine.body.memories).toEqual(expect.arrayContaining([expect.objectContaining({ content: 'Prefers window seats', source: 'system', assistant: a.assistantId })]));
    const theirs = await call(app(), '/memories', { key: b.key });
    expect(JSON.stringify(theirs.body)).not.toContain('Prefers window seats');
  });

  it('ask_user: the question becomes the assistant’s activity and the task waits with the alarm at followUpAt', async () => {
    const a = await person(await newAccount(app()));
    const followUpAt = new Date(Date.now() + 2 * 3_600_000).toISOString();
    llm.enqueue({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which evening?', followUpAt } }] });
    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const task = await taskRow(taskId);
    expect(task).toMatchObject({ status: 'awaiting_user_input', readyForReview: false, alarmStatus: 'set' });
    expect(task.alarmWakeAt!.toISOString()).toBe(followUpAt);
    expect((await activitiesOf(taskId)).map((x) => [x.kind, x.toolName ?? x.content])).toEqual([
      ['tool', 'ask_user'],
      ['assistant', 'Which evening?'],
    ]);
  });

  it('a refused tool call is answered to the model as an error and the run goes on', async () => {
    const a = await person(await newAccount(app()));
    llm.enqueue(
      { toolCalls: [{ name: 'set_alarm', arguments: { wakeAt: new Date(Date.now() - 60_000).toISOString(), headline: 'Too late' } }] },
      { toolCalls: [{ name: 'no_such_tool', arguments: {} }] },
      { text: 'Done thinking.' },
    );
    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const tools = (await activitiesOf(taskId)).filter((x) => x.kind === 'tool');
    expect(tools[0].toolOutput).toMatchObject({ error: expect.stringContaining('wakeAt') });
    expect(tools[1].toolOutput).toMatchObject({ error: expect.stringContaining('no tool no_such_tool') });
    expect((await taskRow(taskId)).status).toBe('awaiting_user_input');
  });

  it('with no model configured the run fails, the task is in error, and an activity says what to set', async () => {
    h.withoutModel();
    const a = await person(await newAccount(app()));
    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'failed', error: 'model_not_configured' });
    expect((await taskRow(taskId)).status).toBe('error');
    const [activity] = await activitiesOf(taskId);
    expect(activity.kind).toBe('assistant');
    expect(activity.content).toContain('STEWARD_MODEL_MEDIUM');
    expect(activity.content).toContain('STEWARD_MODEL_BASE_URL');
    expect(llm.requests).toHaveLength(0);

    // Nothing is lost: once a model is set, the next process call runs the task.
    Object.assign(process.env, { STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: MODEL });
    llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Booked' } }] });
    const again = await call(app(), `/tasks/${taskId}/process`, { key: a.key, body: { message: 'A model is set now' } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await ended(again.body.process.executionId)).toMatchObject({ status: 'finished' });
    expect((await taskRow(taskId)).status).toBe('completed');
    expect(JSON.stringify(llm.requests[0].messages)).toContain('A model is set now');
  });

  it('stops after 25 tool steps with an activity saying so', async () => {
    const a = await person(await newAccount(app()));
    let n = 0;
    llm.setFallback(() => ({ toolCalls: [{ name: 'update_plan', arguments: { items: [{ text: `step ${++n}`, status: 'done' }] } }] }));
    const { taskId, runId } = await startTask(a);
    expect(await ended(runId)).toMatchObject({ status: 'finished', inputTokens: 250, outputTokens: 125 });
    expect(llm.requests).toHaveLength(25);
    const acts = await activitiesOf(taskId);
    expect(acts.filter((x) => x.kind === 'tool')).toHaveLength(25);
    expect(acts.at(-1)).toMatchObject({ kind: 'assistant', content: expect.stringContaining('25 tool steps') });
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input', readyForReview: false, alarmStatus: 'set' });
  }, 60_000);
});
