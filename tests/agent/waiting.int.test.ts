import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskActivities, tasks } from '@/db/schema';
import { setKillSwitch } from '@/server/accounts/service';
import { wakeDueTasks } from '@/server/tasks/wakeups';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from './run-harness';

/**
 * Waiting on other people (wait_for_reply) and the follow-up when nobody answers: the real
 * task-run and task-wakeups functions through the built-in executor, against the scripted model.
 * "Time passing" is the alarm moved into the past, then the wake-ups event.
 */
const h = useRunHarness();
const { app, db, person, startTask, taskRow, ended, runsOf } = h;
const inHours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
const requestsFor = (title: string) => h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes(`Task: ${title}`));
const toolActivities = (taskId: string) =>
  db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId)).orderBy(taskActivities.createdAt).then((rows) => rows.filter((r) => r.kind === 'tool'));

async function contact(key: string, body: Record<string, unknown>) {
  const res = await call(app(), '/contacts', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.contact.id as string;
}

/** Time passes: the task's alarm is due now; the wake-ups function runs (as its minute cron would). */
async function alarmComesDue(taskId: string): Promise<Date> {
  const due = new Date(Date.now() - 1_000);
  await db().update(tasks).set({ alarmWakeAt: due }).where(eq(tasks.id, taskId));
  await h.state.wakeupsDue();
  return due;
}

const runCount = (taskId: string, n: number) =>
  h.until(async () => {
    const rows = await runsOf(taskId);
    return rows.length === n && ['finished', 'failed', 'cancelled'].includes(rows[n - 1].status) ? rows : null;
  }, 20_000);

describe('wait_for_reply', () => {
  it('waits on the named people (the owner’s contacts resolved, another user’s not) with the alarm at followUpAt; the alarm wakes it with the nobody-replied note', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    const bob = await contact(a.key, { email: 'bob@partner.example', name: 'Bob Stone' });
    // The other user knows both addresses; neither of their contacts may appear in a's task.
    await contact(b.key, { email: 'bob@partner.example', name: 'Robert of B' });
    await contact(b.key, { email: 'carol@partner.example', name: 'Carol of B' });

    const followUpAt = inHours(48);
    h.state.llm.enqueue({
      text: 'I wrote to them; now I wait.',
      toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: ['Bob@Partner.example', 'carol@partner.example'], followUpAt } }],
    });
    const { taskId, runId } = await startTask(a, { title: 'Collect quotes' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });

    const got = await call(app(), `/tasks/${taskId}`, { key: a.key });
    expect(got.status).toBe(200);
    expect(got.body.task).toMatchObject({
      status: 'awaiting_non_user_response',
      waitingOnContacts: [
        { email: 'bob@partner.example', name: 'Bob Stone', contactId: bob },
        { email: 'carol@partner.example', name: null, contactId: null },
      ],
      alarm: { wakeAt: followUpAt, status: 'set', headline: expect.stringContaining('bob@partner.example') },
    });
    expect(JSON.stringify(got.body)).not.toContain('of B');
    const [tool] = await toolActivities(taskId);
    expect(tool).toMatchObject({ toolName: 'wait_for_reply', toolOutput: { waiting: true, followUpAt } });
    expect((await call(app(), `/tasks/${taskId}`, { key: b.key })).status).toBe(404);

    // Nobody replied by followUpAt: the alarm wakes the task and the run is told so.
    h.state.llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Reported the silence to the user' } }] });
    const due = await alarmComesDue(taskId);
    const runs = await runCount(taskId, 2);
    expect(runs[1]).toMatchObject({ trigger: 'alarm', status: 'finished' });
    const followUp = requestsFor('Collect quotes')[1];
    const system = followUp.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('Your follow-up alarm fired');
    expect(system.content).toContain(`set for ${due.toISOString()}`);
    expect(system.content).toContain('nobody has replied since');
    expect(system.content).toContain('Bob Stone <bob@partner.example>');
    expect(system.content).toContain('carol@partner.example');
    // Steward's note is not the user's message: no user message carries it.
    expect(followUp.messages.filter((m: any) => m.role === 'user').some((m: any) => JSON.stringify(m.content).includes('alarm fired'))).toBe(false);
    // The first run was not woken by an alarm: no such note.
    expect(requestsFor('Collect quotes')[0].messages[0].content).not.toContain('alarm fired');

    // Once the task rests elsewhere it waits on nobody.
    expect(await taskRow(taskId)).toMatchObject({ status: 'completed', waitingOnContacts: [] });
  });

  it('refuses bad input as an error to the model and writes nothing: past followUpAt, no contacts, a non-email', async () => {
    const a = await person(await newAccount(app()));
    h.state.llm.enqueue(
      { toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: ['bob@partner.example'], followUpAt: new Date(Date.now() - 60_000).toISOString() } }] },
      { toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: [], followUpAt: inHours(1) } }] },
      { toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: ['not an email'] } }] },
      { text: 'I could not set up the wait.' },
    );
    const { taskId, runId } = await startTask(a, { title: 'Bad waits' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const tools = await toolActivities(taskId);
    expect(tools.map((t) => t.toolOutput)).toEqual([
      expect.objectContaining({ error: expect.stringContaining('followUpAt') }),
      expect.objectContaining({ error: 'Invalid input', issues: [expect.objectContaining({ field: 'contacts' })] }),
      expect.objectContaining({ error: 'Invalid input', issues: expect.arrayContaining([expect.objectContaining({ field: 'contacts.0' }), expect.objectContaining({ field: 'followUpAt' })]) }),
    ]);
    // The run went on and ended with its answer; the task never waited on anyone.
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input', waitingOnContacts: [], readyForReview: true });
  });
});

describe('follow-up alarms and the kill switch', () => {
  it('an unanswered ask_user wakes with the note naming its alarm; set_alarm’s own wake names its headline', async () => {
    const a = await person(await newAccount(app()));
    h.state.llm.enqueue({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which hotel do you prefer?', followUpAt: inHours(5) } }] });
    const { taskId, runId } = await startTask(a, { title: 'Pick a hotel' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    h.state.llm.enqueue({ text: 'Still waiting for your choice of hotel.' });
    await alarmComesDue(taskId);
    await runCount(taskId, 2);
    const system = requestsFor('Pick a hotel')[1].messages[0].content as string;
    expect(system).toContain('Your follow-up alarm fired (“Follow up: Which hotel do you prefer?”');
    expect(system).not.toContain('waiting to hear from');

    h.state.llm.enqueue({ toolCalls: [{ name: 'set_alarm', arguments: { wakeAt: inHours(3), headline: 'Check the prices again' } }] });
    const second = await startTask(a, { title: 'Watch prices' });
    expect(await ended(second.runId)).toMatchObject({ status: 'finished' });
    h.state.llm.enqueue({ text: 'Prices unchanged.' });
    await alarmComesDue(second.taskId);
    await runCount(second.taskId, 2);
    expect(requestsFor('Watch prices')[1].messages[0].content).toContain('fired (“Check the prices again”, set for');
  });

  it('a frozen account’s due alarm and scheduled start wait until the kill switch is released', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const other = await person(await newAccount(app()));
    h.state.llm.enqueue({ toolCalls: [{ name: 'wait_for_reply', arguments: { contacts: ['bob@partner.example'], followUpAt: inHours(2) } }] });
    const { taskId, runId } = await startTask(a, { title: 'Frozen follow-up' });
    expect(await ended(runId)).toMatchObject({ status: 'finished' });
    const scheduled = await h.createTask(a, { title: 'Frozen schedule', status: 'scheduled', scheduledFor: inHours(1) });
    const elsewhere = await h.createTask(other, { title: 'Live schedule', status: 'scheduled', scheduledFor: inHours(1) });
    h.state.llm.setFallback({ text: 'Done for now.' });

    // Frozen first: the minute cron may run a wake-up pass at any moment from here on.
    await setKillSwitch(db(), acct.accountId, true);
    const past = new Date(Date.now() - 1_000);
    await db().update(tasks).set({ alarmWakeAt: past }).where(eq(tasks.id, taskId));
    await db().update(tasks).set({ scheduledFor: past }).where(eq(tasks.id, scheduled));
    await db().update(tasks).set({ scheduledFor: past }).where(eq(tasks.id, elsewhere));
    const frozen = await wakeDueTasks(db(), new Date());
    expect(frozen).toMatchObject({ alarmsFired: 0, failed: [] });
    expect(await taskRow(taskId)).toMatchObject({ status: 'awaiting_non_user_response', alarmStatus: 'set' });
    expect(await taskRow(scheduled)).toMatchObject({ status: 'scheduled' });
    expect(await runsOf(scheduled)).toEqual([]);
    // Another account is not held back by this one's switch.
    expect(await runsOf(elsewhere)).toHaveLength(1);

    await setKillSwitch(db(), acct.accountId, false);
    await wakeDueTasks(db(), new Date());
    const runs = await runCount(taskId, 2);
    expect(runs[1].trigger).toBe('alarm');
    expect(await runsOf(scheduled)).toEqual([expect.objectContaining({ trigger: 'schedule' })]);
    await runCount(scheduled, 1);
    await runCount(elsewhere, 1);
  });
});
