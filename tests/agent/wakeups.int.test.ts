import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { tasks } from '@/db/schema';
import { wakeDueTasks } from '@/server/tasks/wakeups';
import { newAccount } from '../helpers/client';
import { useRunHarness } from './run-harness';

/**
 * Alarms firing and scheduled tasks starting on their own: the production task-wakeups function
 * (triggered here by its event instead of waiting for the minute cron) and the runs it queues,
 * through the built-in executor and the scripted model.
 */
const h = useRunHarness();
const past = (ms = 60_000) => new Date(Date.now() - ms);
const future = (ms = 3_600_000) => new Date(Date.now() + ms).toISOString();
const taskMentions = (taskTitle: string) => h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes(taskTitle));

describe('wake-ups', () => {
  it('a due alarm fires: the task wakes, a second run (trigger alarm) reaches the model and finishes the task', async () => {
    const a = await h.person(await newAccount(h.app()));
    h.state.llm.enqueue({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which evening?', followUpAt: future() } }] });
    const { taskId, runId } = await h.startTask(a, { title: 'Alarm task' });
    expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
    expect(await h.taskRow(taskId)).toMatchObject({ status: 'awaiting_user_input', alarmStatus: 'set' });

    // Nobody replied and the follow-up time has come.
    await h.db().update(tasks).set({ alarmWakeAt: past() }).where(eq(tasks.id, taskId));
    h.state.llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Followed up' } }] });
    await h.state.wakeupsDue();

    const runs = await h.until(async () => {
      const rows = await h.runsOf(taskId);
      return rows.length === 2 && rows[1].status === 'finished' ? rows : null;
    }, 30_000);
    expect(runs[1]).toMatchObject({ trigger: 'alarm', status: 'finished' });
    expect(taskMentions('Alarm task')).toHaveLength(2);
    expect(await h.taskRow(taskId)).toMatchObject({ status: 'completed', alarmStatus: 'fired', summary: 'Followed up' });
  });

  it('a scheduled task whose time has come starts on its own (trigger schedule); one awaiting approval does not', async () => {
    const a = await h.person(await newAccount(h.app()));
    const due = await h.createTask(a, { title: 'Scheduled task', status: 'scheduled', scheduledFor: future() });
    const proposed = await h.createTask(a, { title: 'Proposed task', status: 'scheduled', scheduledFor: future() });
    await h.db().update(tasks).set({ scheduledFor: past() }).where(eq(tasks.id, due));
    await h.db().update(tasks).set({ scheduledFor: past(), proposalStatus: 'pending_user_approval' }).where(eq(tasks.id, proposed));
    h.state.llm.enqueue({ text: 'Here is the weekly report.' });
    await h.state.wakeupsDue();

    const [run] = await h.until(async () => {
      const rows = await h.runsOf(due);
      return rows.length === 1 && rows[0].status === 'finished' ? rows : null;
    }, 30_000);
    expect(run).toMatchObject({ trigger: 'schedule' });
    expect(taskMentions('Scheduled task')).toHaveLength(1);
    expect(await h.taskRow(due)).toMatchObject({ status: 'awaiting_user_input', readyForReview: true });

    expect(await h.runsOf(proposed)).toEqual([]);
    expect(await h.taskRow(proposed)).toMatchObject({ status: 'scheduled' });
    expect(taskMentions('Proposed task')).toHaveLength(0);
  });

  it('two wake-up passes at once wake a due task once', async () => {
    const a = await h.person(await newAccount(h.app()));
    const id = await h.createTask(a, { title: 'Raced task', status: 'scheduled', scheduledFor: future() });
    await h.db().update(tasks).set({ scheduledFor: past() }).where(eq(tasks.id, id));
    h.state.llm.setFallback({ text: 'Done.' });
    const now = new Date();
    const results = await Promise.all([wakeDueTasks(h.db(), now), wakeDueTasks(h.db(), now), wakeDueTasks(h.db(), now)]);
    expect(results.every((r) => r.failed.length === 0)).toBe(true);
    const runs = await h.runsOf(id);
    expect(runs).toHaveLength(1);
    expect(runs[0].trigger).toBe('schedule');
    await h.ended(runs[0].id);
  });
});
