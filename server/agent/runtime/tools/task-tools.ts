import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { tasks } from '@/db/schema';
import { invalidFields } from '@/server/http/errors';
import { applyChange } from '@/server/tasks/move';
import { plan } from '@/server/tasks/transitions';
import { createNotice } from '@/server/notices/create';
import { defineTool } from './registry';

/*
 * The tools that move the task itself (spec: Tools). Every status change is planned by the
 * tasks area's transition table and written by applyChange, as the owner's own moves are.
 */

const DAY = 24 * 3_600_000;
const IsoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset' });

function futureTime(value: string | undefined, now: Date, field: string, fallbackMs?: number): Date {
  const at = value ? new Date(value) : new Date(now.getTime() + (fallbackMs ?? 0));
  if (at.getTime() <= now.getTime()) throw invalidFields([{ field, problem: 'must be in the future' }]);
  return at;
}

const headline = (text: string) => (text.length > 120 ? `${text.slice(0, 117)}...` : text);

export const askUser = defineTool({
  name: 'ask_user',
  description:
    'Ask the user a question only they can answer. The run ends and the task waits for their reply; if nobody answers by followUpAt (default: in 24 hours) you are woken to follow up.',
  input: z.object({ question: z.string().trim().min(1).max(10_000), followUpAt: IsoDateTime.optional() }),
  handler: async (db, _actor, task, input, run) => {
    const wakeAt = futureTime(input.followUpAt, run.now, 'followUpAt', DAY);
    const change = { ...plan(task, 'wait', 'awaiting_user_input', { wakeAt, headline: headline(`Follow up: ${input.question}`) }, run.now), readyForReview: false };
    await applyChange(db, task, change, 'wait');
    // The question finds the user where they are; their answer to the notice comes back to this task.
    await createNotice(db, {
      accountId: task.accountId,
      userId: task.userId,
      kind: 'question',
      dedupeKey: `question:${run.runId}`,
      taskId: task.id,
      subject: `Question about "${headline(task.title)}"`,
      text: `Your assistant needs your answer to go on with the task "${task.title}":\n\n${input.question}`,
      linkPath: `/tasks/${task.id}`,
    }, run.now);
    return { output: { asked: true, followUpAt: wakeAt.toISOString() }, say: input.question, endsRun: true };
  },
});

export const setAlarm = defineTool({
  name: 'set_alarm',
  description: 'Stop working until wakeAt; the task then wakes and you run again. headline says why (shown to the user).',
  input: z.object({ wakeAt: IsoDateTime, headline: z.string().trim().min(1).max(500) }),
  handler: async (db, _actor, task, input, run) => {
    const wakeAt = futureTime(input.wakeAt, run.now, 'wakeAt');
    await applyChange(db, task, plan(task, 'wait', 'alarm_set', { wakeAt, headline: input.headline }, run.now), 'wait');
    return { output: { alarmSet: true, wakeAt: wakeAt.toISOString() }, endsRun: true };
  },
});

export const updatePlan = defineTool({
  name: 'update_plan',
  description: 'Replace the task’s plan with these items (shown to the user). status: pending, done, skipped or blocked.',
  input: z.object({
    items: z
      .array(z.object({ text: z.string().trim().min(1).max(1_000), status: z.enum(['pending', 'done', 'skipped', 'blocked']) }))
      .max(50),
  }),
  handler: async (db, _actor, task, input) => {
    const items = input.items.map((i) => ({ title: i.text, status: i.status }));
    await db.update(tasks).set({ plan: items }).where(eq(tasks.id, task.id));
    return { output: { plan: items } };
  },
});

export const completeTask = defineTool({
  name: 'complete_task',
  description: 'The task is done: summary tells the user what was achieved. The run ends.',
  input: z.object({ summary: z.string().trim().min(1).max(10_000) }),
  handler: async (db, _actor, task, input, run) => {
    await applyChange(db, task, { ...plan(task, 'finish', 'completed', undefined, run.now), summary: input.summary }, 'finish');
    return { output: { completed: true }, endsRun: true };
  },
});
