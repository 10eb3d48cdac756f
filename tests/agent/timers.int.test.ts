import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { taskRuns } from '@/db/schema';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from './run-harness';

/*
 * Alarms and scheduled tasks at their time (spec document 2): a task starts within two seconds of
 * its scheduledFor and wakes within two seconds of its alarm, without the minute sweep (never
 * called here): the engine's timer for that task does it.
 */
const h = useRunHarness();
const TWO_SECONDS = 2_000;

const runWith = (taskId: string, trigger: 'alarm' | 'schedule') =>
  h.until(async () => {
    const [run] = await h.db().select().from(taskRuns).where(and(eq(taskRuns.taskId, taskId), eq(taskRuns.trigger, trigger)));
    return run ?? null;
  }, 15_000);

describe('timers', () => {
  it('a scheduled task starts within 2 s of scheduledFor', async () => {
    const p = await h.person(await newAccount(h.app()));
    h.state.llm.setFallback({ text: 'Started on time.' });
    const at = new Date(Date.now() + 3_000);
    const created = await call(h.app(), '/tasks', { key: p.key, body: { title: 'At three seconds', assistant: p.assistantId, status: 'scheduled', scheduledFor: at.toISOString() } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await runWith(created.body.task.id, 'schedule');
    const late = run.createdAt.getTime() - at.getTime();
    expect(late).toBeGreaterThanOrEqual(-50);
    expect(late).toBeLessThan(TWO_SECONDS);
    await h.ended(run.id);
  });

  it('an alarm wakes its task within 2 s of wakeAt', async () => {
    const p = await h.person(await newAccount(h.app()));
    const at = new Date(Date.now() + 4_000);
    // The first call of this task sets the alarm; every later one (the woken run) answers.
    h.state.llm.setFallback((r) =>
      JSON.stringify(r.messages).includes('Alarm in four seconds') && !r.messages.some((m) => m.role === 'tool')
        ? { toolCalls: [{ name: 'set_alarm', arguments: { wakeAt: at.toISOString(), headline: 'Check again' } }] }
        : { text: 'Woke and checked.' },
    );
    const { taskId, runId } = await h.startTask(p, { title: 'Alarm in four seconds' });
    await h.ended(runId);
    const run = await runWith(taskId, 'alarm');
    const late = run.createdAt.getTime() - at.getTime();
    expect(late).toBeGreaterThanOrEqual(-50);
    expect(late).toBeLessThan(TWO_SECONDS);
  });
});
