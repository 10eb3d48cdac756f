import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskActivities, tasks } from '@/db/schema';
import { call, newAccount } from '../helpers/client';
import type { ModelRequest, ScriptedReply } from '../helpers/scripted-model';
import { useRunHarness } from './run-harness';

/**
 * The assistant handing work on: create_task (at once, held for approval, scheduled) and
 * create_subtasks (the parent waits, its children run, the parent wakes once they have all ended),
 * through HTTP, the real task-run function and the scripted model. Runs of several tasks overlap,
 * so the model answers by the task a request is for (its "Task: <title>" message).
 */
const h = useRunHarness();
const { app, db, person, startTask, taskRow, ended, runsOf } = h;
type Person = Awaited<ReturnType<typeof person>>;
const inHours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();

const titleOf = (req: ModelRequest): string | null => {
  const m = req.messages.find((x: any) => x.role === 'user' && typeof x.content === 'string' && x.content.startsWith('Task: '));
  return m ? (m.content as string).slice('Task: '.length).split('\n')[0] : null;
};

/** Each task's replies, in order, by title; a task without a script left answers in plain text. */
function script(byTitle: Record<string, ScriptedReply[]>) {
  h.state.llm.setFallback((req) => {
    const title = titleOf(req);
    return (title && byTitle[title]?.shift()) || { text: `(unscripted: ${title})` };
  });
}

const requestsFor = (title: string) => h.state.llm.requests.filter((r) => titleOf(r) === title);
const text = (req: ModelRequest) => JSON.stringify(req.messages);
const tool = (name: string, args: unknown): ScriptedReply => ({ toolCalls: [{ name, arguments: args }] });
const complete = (summary: string) => tool('complete_task', { summary });

async function taskNamed(p: Person, title: string) {
  const list = await call(app(), '/tasks?perPage=100', { key: p.key });
  expect(list.status).toBe(200);
  return list.body.tasks.find((t: any) => t.title === title) as any;
}

const get = async (p: Person, id: string) => call(app(), `/tasks/${id}`, { key: p.key });

const statusIs = (id: string, status: string) => h.until(async () => ((await taskRow(id))?.status === status ? taskRow(id) : null), 20_000);

const runsSettle = (taskId: string, n: number) =>
  h.until(async () => {
    const rows = await runsOf(taskId);
    return rows.length === n && rows.every((r) => ['finished', 'failed', 'cancelled'].includes(r.status)) ? rows : null;
  }, 20_000);

const toolOutputs = async (taskId: string, name: string) =>
  (await db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId)).orderBy(taskActivities.createdAt))
    .filter((a) => a.kind === 'tool' && a.toolName === name)
    .map((a) => a.toolOutput as any);

describe('create_task', () => {
  it('creates a task of the same owner and assistant (createdBy agent) that runs at once from its own title and description only', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    script({
      'Plan the trip': [tool('create_task', { title: 'Book the train', description: 'Paris to Lyon\non Friday' }), complete('Train task created')],
      'Book the train': [complete('Booked seat 42')],
    });
    const { taskId, runId } = await startTask(a, { title: 'Plan the trip' }, 'PARENT-ONLY: my loyalty number is 998877');
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const [output] = await toolOutputs(taskId, 'create_task');
    expect(output).toMatchObject({ taskId: expect.any(String), status: 'pending', proposalStatus: null });

    await statusIs(output.taskId, 'completed');
    const child = await get(a, output.taskId);
    expect(child.status).toBe(200);
    expect(child.body.task).toMatchObject({
      title: 'Book the train',
      createdBy: 'agent',
      proposalStatus: null,
      parentTask: null,
      assistant: a.assistantId,
      owner: a.email,
      status: 'completed',
      summary: 'Booked seat 42',
    });
    const [first] = requestsFor('Book the train');
    expect(text(first)).toContain(JSON.stringify('Task: Book the train\n\nParis to Lyon\non Friday'));
    expect(text(first)).not.toContain('PARENT-ONLY');
    expect(text(first)).not.toContain('Plan the trip');
    expect((await runsOf(output.taskId)).map((r) => r.trigger)).toEqual(['process']);

    expect((await get(b, output.taskId)).status).toBe(404);
    expect(JSON.stringify((await call(app(), '/tasks', { key: b.key })).body)).not.toContain(output.taskId);
  });

  it('a task the assistant created only proposes further tasks: they wait for the user whatever needsApproval says', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    script({
      'Tidy the inbox': [tool('create_task', { title: 'Sort newsletters' }), complete('Handed on')],
      'Sort newsletters': [tool('create_task', { title: 'Unsubscribe everywhere', needsApproval: false }), complete('Proposed more')],
    });
    const { taskId, runId } = await startTask(a, { title: 'Tidy the inbox' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const [first] = await toolOutputs(taskId, 'create_task');
    expect(first).toMatchObject({ proposalStatus: null });
    await statusIs(first.taskId, 'completed');
    const [second] = await toolOutputs(first.taskId, 'create_task');
    expect(second).toMatchObject({ status: 'pending', proposalStatus: 'pending_user_approval' });
    expect((await get(a, second.taskId)).body.task).toMatchObject({ createdBy: 'agent', proposalStatus: 'pending_user_approval' });
    expect(await runsOf(second.taskId)).toEqual([]);
  });

  it('with needsApproval the task waits for approve (then runs) or decline (then ends, never run); with scheduledFor it waits for its time', async () => {
    const a = await person(await newAccount(app()));
    const at = inHours(2);
    script({
      'Weekly review': [
        tool('create_task', { title: 'Renew the domain', description: 'example.org expires soon', needsApproval: true }),
        tool('create_task', { title: 'Cancel the gym', needsApproval: true }),
        tool('create_task', { title: 'Send the reminder', scheduledFor: at }),
        complete('Proposed two tasks, scheduled one'),
      ],
      'Renew the domain': [complete('Renewed for a year')],
    });
    const { taskId, runId } = await startTask(a, { title: 'Weekly review' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const [renew, gym, reminder] = await toolOutputs(taskId, 'create_task');
    expect(renew).toMatchObject({ status: 'pending', proposalStatus: 'pending_user_approval' });
    expect(reminder).toMatchObject({ status: 'scheduled', proposalStatus: null, scheduledFor: at });

    const held = await get(a, renew.taskId);
    expect(held.body.task).toMatchObject({ status: 'pending', createdBy: 'agent', proposalStatus: 'pending_user_approval' });
    expect(await runsOf(renew.taskId)).toEqual([]);
    expect((await call(app(), `/tasks/${renew.taskId}/process`, { key: a.key, body: { message: 'go' } })).status).toBe(409);
    expect((await get(a, reminder.taskId)).body.task).toMatchObject({ status: 'scheduled', scheduledFor: at, createdBy: 'agent' });
    expect(await runsOf(reminder.taskId)).toEqual([]);

    const approved = await call(app(), `/tasks/${renew.taskId}/approve`, { key: a.key, body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.task).toMatchObject({ proposalStatus: 'approved' });
    await statusIs(renew.taskId, 'completed');
    const [first] = requestsFor('Renew the domain');
    expect(text(first)).toContain('example.org expires soon');
    expect(text(first)).not.toContain('Weekly review');

    const declined = await call(app(), `/tasks/${gym.taskId}/decline`, { key: a.key, body: { reason: 'I still go' } });
    expect(declined.status).toBe(200);
    expect(declined.body.task).toMatchObject({ status: 'archived', proposalStatus: 'declined' });
    expect(await runsOf(gym.taskId)).toEqual([]);
    expect(requestsFor('Cancel the gym')).toEqual([]);
  });

  it('bad input is an error to the model and creates nothing', async () => {
    const a = await person(await newAccount(app()));
    script({
      'Careless': [
        tool('create_task', { title: 'Too late', scheduledFor: new Date(Date.now() - 60_000).toISOString() }),
        tool('create_task', { title: '', modelTier: 'huge' }),
        tool('create_subtasks', { subtasks: [] }),
        { text: 'Nothing created.' },
      ],
    });
    const { taskId, runId } = await startTask(a, { title: 'Careless' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const outputs = [...(await toolOutputs(taskId, 'create_task')), ...(await toolOutputs(taskId, 'create_subtasks'))];
    expect(outputs).toEqual([
      expect.objectContaining({ error: expect.stringContaining('scheduledFor') }),
      expect.objectContaining({ error: 'Invalid input', issues: expect.arrayContaining([expect.objectContaining({ field: 'title' }), expect.objectContaining({ field: 'modelTier' })]) }),
      expect.objectContaining({ error: 'Invalid input', issues: [expect.objectContaining({ field: 'subtasks' })] }),
    ]);
    const list = await call(app(), '/tasks', { key: a.key });
    expect(list.body.tasks.map((t: any) => t.title)).toEqual(['Careless']);
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input' });
  });
});

describe('create_subtasks', () => {
  it('the parent waits (subtasks_running, alarm) while its children run; it wakes once the last ends and reads each child’s status and summary', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    script({
      'Organise the offsite': [
        tool('create_subtasks', { subtasks: [{ title: 'Find a venue', description: 'For 12 people' }, { title: 'Book travel', description: 'Trains for 12' }] }),
        complete('Offsite organised'),
      ],
      'Find a venue': [complete('Venue: the old mill')],
      'Book travel': [tool('ask_user', { question: 'Which station do we leave from?' })],
    });
    const before = Date.now();
    const { taskId, runId } = await startTask(a, { title: 'Organise the offsite', modelTier: 'medium' }, 'PARENT-SECRET budget 5000');
    expect(await ended(runId)).toMatchObject({ status: 'finished' });

    const venue = await taskNamed(a, 'Find a venue');
    const travel = await taskNamed(a, 'Book travel');
    await statusIs(venue.id, 'completed');
    await statusIs(travel.id, 'awaiting_user_input');
    const parent = (await get(a, taskId)).body.task;
    expect(parent).toMatchObject({ status: 'subtasks_running', alarm: { status: 'set', headline: 'Check on 2 subtasks' } });
    const wakeAt = new Date(parent.alarm.wakeAt).getTime();
    expect(wakeAt - before).toBeGreaterThan(24 * 3_600_000 - 60_000);
    expect(wakeAt - Date.now()).toBeLessThan(24 * 3_600_000 + 60_000);
    for (const child of [venue, travel]) {
      expect(child).toMatchObject({ parentTask: taskId, createdBy: 'agent', assistant: a.assistantId, owner: a.email, modelTier: 'medium', proposalStatus: null });
      expect((await get(b, child.id)).status).toBe(404);
      expect(text(requestsFor(child.title)[0])).not.toContain('PARENT-SECRET');
    }
    expect((await call(app(), '/tasks', { key: b.key })).body.tasks).toEqual([]);
    expect(await runsOf(taskId)).toHaveLength(1);

    // The last open child ends (the user marks it done): the parent wakes, once.
    expect((await call(app(), `/tasks/${travel.id}/mark-done`, { key: a.key, method: 'POST' })).status).toBe(200);
    const runs = await runsSettle(taskId, 2);
    expect(runs[1]).toMatchObject({ trigger: 'subtasks', status: 'finished' });
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed', summary: 'Offsite organised', alarmStatus: 'cancelled' });

    const woken = requestsFor('Organise the offsite')[1];
    expect(woken.messages[0].content).toContain('All the subtasks you created for this task have ended');
    const report = woken.messages.find((m: any) => m.role === 'user' && String(m.content).includes('source="subtasks"'));
    expect(report.content).toMatch(/^<untrusted-data source="subtasks">/);
    expect(report.content).toContain('“Find a venue”');
    expect(report.content).toContain('status completed. Summary: Venue: the old mill');
    expect(report.content).toContain('“Book travel”');
    expect(report.content).toContain('status done_user_marked. No summary. Last message: Which station do we leave from?');
  });

  it('two children ending at the same moment wake the parent exactly once', async () => {
    const a = await person(await newAccount(app()));
    const names = ['Ask vendor A', 'Ask vendor B', 'Ask vendor C', 'Ask vendor D'];
    script({
      'Survey vendors': [tool('create_subtasks', { subtasks: names.map((title) => ({ title, description: 'Get a quote' })) }), complete('Survey done')],
      ...Object.fromEntries(names.map((n) => [n, [tool('ask_user', { question: `Anything for ${n}?` })]])),
    });
    const { taskId, runId } = await startTask(a, { title: 'Survey vendors' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const children = await Promise.all(names.map((n) => taskNamed(a, n)));
    for (const c of children) await statusIs(c.id, 'awaiting_user_input');
    for (const c of children) await runsSettle(c.id, 1);

    const done = await Promise.all(children.map((c) => call(app(), `/tasks/${c.id}/mark-done`, { key: a.key, method: 'POST' })));
    expect(done.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const runs = await runsSettle(taskId, 2);
    expect(runs.map((r) => r.trigger)).toEqual(['process', 'subtasks']);
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed' });
    expect(requestsFor('Survey vendors')).toHaveLength(2);
  });

  it('deleting a child counts as its end; the parent wakes without it', async () => {
    const a = await person(await newAccount(app()));
    script({
      'Clean the inbox': [tool('create_subtasks', { subtasks: [{ title: 'Archive newsletters', description: 'x' }, { title: 'Answer Jim', description: 'y' }] }), complete('Inbox clean')],
      'Archive newsletters': [complete('Archived 40 newsletters')],
      'Answer Jim': [tool('ask_user', { question: 'What should I tell Jim?' })],
    });
    const { taskId, runId } = await startTask(a, { title: 'Clean the inbox' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const archive = await taskNamed(a, 'Archive newsletters');
    const jim = await taskNamed(a, 'Answer Jim');
    await statusIs(archive.id, 'completed');
    await statusIs(jim.id, 'awaiting_user_input');
    await runsSettle(jim.id, 1);
    expect((await taskRow(taskId)).status).toBe('subtasks_running');

    expect((await call(app(), `/tasks/${jim.id}`, { key: a.key, method: 'DELETE' })).status).toBe(200);
    const runs = await runsSettle(taskId, 2);
    expect(runs[1].trigger).toBe('subtasks');
    const report = requestsFor('Clean the inbox')[1].messages.find((m: any) => m.role === 'user' && String(m.content).includes('source="subtasks"'));
    expect(report.content).toContain('Archived 40 newsletters');
    expect(report.content).not.toContain('Answer Jim');
    expect((await get(a, jim.id)).status).toBe(404);
  });

  it('the follow-up alarm wakes a parent whose children are still running, and says so; a child ending later does not wake it again', async () => {
    const a = await person(await newAccount(app()));
    script({
      'Long project': [tool('create_subtasks', { subtasks: [{ title: 'Slow part', description: 'z' }] }), { text: 'The slow part is still waiting on you.' }],
      'Slow part': [tool('ask_user', { question: 'May I go on?' })],
    });
    const { taskId, runId } = await startTask(a, { title: 'Long project' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const slow = await taskNamed(a, 'Slow part');
    await statusIs(slow.id, 'awaiting_user_input');
    await db().update(tasks).set({ alarmWakeAt: new Date(Date.now() - 1_000) }).where(eq(tasks.id, taskId));
    await h.state.wakeupsDue();
    const runs = await runsSettle(taskId, 2);
    expect(runs[1].trigger).toBe('alarm');
    const woken = requestsFor('Long project')[1];
    expect(woken.messages[0].content).toContain('Your follow-up alarm fired (“Check on 1 subtask”');
    expect(woken.messages[0].content).toContain('1 of your subtasks has not ended yet');
    expect(text(woken)).toContain('status awaiting_user_input');
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input' });

    expect((await call(app(), `/tasks/${slow.id}/mark-done`, { key: a.key, method: 'POST' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(await runsOf(taskId)).toHaveLength(2);
  });

  it('subtasks nest at most three levels; each level wakes the one above when it ends', async () => {
    const a = await person(await newAccount(app()));
    const level = (n: number) => `Level ${n}`;
    script({
      ...Object.fromEntries(
        [0, 1, 2, 3].map((n) => [level(n), [tool('create_subtasks', { subtasks: [{ title: level(n + 1), description: 'deeper' }] }), complete(`${level(n)} done`)]]),
      ),
    });
    const { taskId, runId } = await startTask(a, { title: level(0) });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    await statusIs(taskId, 'completed');
    const deepest = await taskNamed(a, level(3));
    const [refusal] = await toolOutputs(deepest.id, 'create_subtasks');
    expect(refusal).toMatchObject({ error: expect.stringContaining('3 levels') });
    expect(await taskNamed(a, level(4))).toBeUndefined();
    for (const n of [1, 2]) expect((await taskNamed(a, level(n))).status).toBe('completed');
    expect((await runsOf(taskId)).map((r) => r.trigger)).toEqual(['process', 'subtasks']);
  });
});
