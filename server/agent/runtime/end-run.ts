import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { taskRuns } from '@/db/schema';
import type { StewardUsage } from '@/server/agent/models/usage';
import { recordActivities } from '@/server/tasks/activities';
import { applyChange } from '@/server/tasks/move';
import { plan } from '@/server/tasks/transitions';
import { lockedRun } from './run-state';
import { MAX_TOOL_STEPS } from './tools/core';

const FOLLOW_UP_MS = 24 * 3_600_000;

/**
 * How a run ended (spec: Wire details, "How a run ends"):
 * - answered: plain text and no waiting tool: the text is the assistant's activity and the task
 *   awaits the user's review, with a 24-hour follow-up alarm so nothing waits without one;
 * - tool: a tool already moved the task (complete_task, ask_user, set_alarm);
 * - step_limit: past the tool steps a run may take: an activity says so and the task awaits the user;
 * - not_configured: no model can serve the tier: the activity says what to set, status error;
 * - failed: the model or a step kept failing: the activity says so, status error;
 * - stopped: the run was stopped or the task moved meanwhile: only the run row is closed.
 */
export type RunEnd =
  | { kind: 'answered'; text: string }
  | { kind: 'tool' }
  | { kind: 'step_limit' }
  | { kind: 'not_configured'; message: string }
  | { kind: 'failed'; message: string }
  | { kind: 'stopped'; reason: string };

export const stepLimitMessage = () =>
  `I stopped after ${MAX_TOOL_STEPS} tool steps, the most one run may take. Send a message to let me continue.`;

/**
 * The last step of a run: the task's final move (through the transition table), the closing
 * activity, and the run row finished or failed with the tokens the provider reported (null: the
 * failure handler, which does not know them, leaves them as they are). Idempotent:
 * a run that is no longer running is left as it is.
 */
export async function endRun(db: Db, runId: string, end: RunEnd, usage: StewardUsage | null, modelId: string | null, now = new Date()) {
  return db.transaction(async (tx) => {
    const locked = await lockedRun(tx, runId);
    if (!locked || locked.run.status !== 'running') return { ended: false };
    const { run, task } = locked;
    const executing = task.status === 'executing';
    const followUp = { wakeAt: new Date(now.getTime() + FOLLOW_UP_MS), headline: 'Review the answer' };
    let failed: string | null = null;
    if (executing && end.kind === 'answered') {
      await recordActivities(tx, task, [{ kind: 'assistant', content: end.text, runId }]);
      await applyChange(tx, task, { ...plan(task, 'wait', 'awaiting_user_input', followUp, now), readyForReview: true }, 'wait');
    } else if (executing && end.kind === 'step_limit') {
      await recordActivities(tx, task, [{ kind: 'assistant', content: stepLimitMessage(), runId }]);
      await applyChange(tx, task, { ...plan(task, 'wait', 'awaiting_user_input', { ...followUp, headline: 'Continue the task?' }, now), readyForReview: false }, 'wait');
    } else if (end.kind === 'not_configured' || end.kind === 'failed') {
      failed = end.kind === 'not_configured' ? 'model_not_configured' : end.message;
      if (executing) {
        await recordActivities(tx, task, [{ kind: 'assistant', content: end.message, runId }]);
        await applyChange(tx, task, plan(task, 'fail', 'error', undefined, now), 'fail');
      }
    }
    await tx
      .update(taskRuns)
      .set({ status: failed ? 'failed' : 'finished', error: failed, endedAt: now, model: modelId ?? run.model, ...(usage ?? {}) })
      .where(eq(taskRuns.id, run.id));
    return { ended: true };
  });
}
