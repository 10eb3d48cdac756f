import { storableText } from '@/db/storable';
import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { taskActivities, taskRuns, users, type TaskRow, type TaskStatus } from '@/db/schema';
import type { StewardUsage } from '@/server/models/usage';
import { discardRunCart, submitRunCart } from '@/server/approvals/run-cart';
import type { SubmitOutcome } from '@/server/approvals/staging';
import { spentBudgetMessage } from '@/server/budgets/messages';
import type { SpentBudget } from '@/server/budgets/reserve';
import { noteBlockedTask } from '@/server/budgets/resume';
import { recordActivities } from '@/server/tasks/activities';
import { holdForInactiveOwner } from '@/server/tasks/holds';
import { applyChange } from '@/server/tasks/move';
import { queueRun } from '@/server/tasks/runs';
import { plan } from '@/server/tasks/transitions';
import { lockedRun, userMessageCount } from './run-state';
import { MAX_TOOL_STEPS } from './tools/core';

const FOLLOW_UP_MS = 24 * 3_600_000;

/** The run row's `error` when the kill switch stopped it (the API's code for a frozen account). */
export const FROZEN_RUN_ERROR = 'KILL_SWITCH_ENGAGED';

/**
 * How a run ended (spec: Wire details, "How a run ends"):
 * - answered: plain text and no waiting tool: the text is the assistant's activity and the task
 *   awaits the user's review, with a 24-hour follow-up alarm so nothing waits without one;
 * - tool: a tool already moved the task (complete_task, ask_user, set_alarm);
 * - step_limit: past the tool steps a run may take, or its model or tool calls (`limit`, spec 5
 *   Limits): an activity says which and the task awaits the user, who resumes it with a message;
 * - credits_blocked: a budget covering the owner is spent: an activity names it and how to top it
 *   up, the task waits in credits_blocked until credits are restored (server/budgets/resume.ts);
 * - not_configured: no model can serve the tier: the activity says what to set, status error;
 * - failed: the model or a step kept failing: the activity says so, status error;
 * - stopped: the run was stopped or the task moved meanwhile: only the run row is closed; when the
 *   run stopped because its owner was suspended or deactivated mid-run, the task is held as a run
 *   about to start for them would be (paused, owner_inactive), never left executing;
 * - frozen: the account's kill switch is engaged: the task goes on hold, the run is cancelled.
 *
 * `seenUserMessages` is what the last model call read (model-step.ts, task-host.ts), `seq` that call's place in
 * the run (from 0); `mayContinue` whether the run may make another model call (it has not reached
 * MAX_TOOL_STEPS).
 */
export type RunEnd =
  | { kind: 'answered'; text: string; seq?: number; seenUserMessages?: number; mayContinue?: boolean }
  | { kind: 'tool'; mayContinue?: boolean }
  | { kind: 'step_limit'; seenUserMessages?: number; limit?: RunLimitHit }
  | { kind: 'credits_blocked'; budget: SpentBudget }
  | { kind: 'not_configured'; message: string }
  | { kind: 'failed'; message: string }
  | { kind: 'stopped'; reason: string }
  | { kind: 'frozen' };

/** Which per-run limit of spec 5 a run reached, and its value for this run. */
export type RunLimitHit = { name: 'model_calls' | 'tool_calls'; max: number };

/** Statuses a run's own tools leave the task in: a run that ended in one of them ended normally. */
const RUN_OUTCOMES: readonly TaskStatus[] = ['executing', 'completed', 'awaiting_user_input', 'awaiting_non_user_response', 'alarm_set', 'scheduled', 'subtasks_running'];

/**
 * The run's open cart when the run ends (spec: Carts and dispatch): a run that ended normally
 * (an answer, a tool that moved the task, the step limit) submits it; one that failed, was
 * stopped, or whose task the user stopped or closed meanwhile releases nothing it staged.
 */
async function settleRunCart(tx: Tx, runId: string, end: RunEnd, task: TaskRow, now: Date): Promise<SubmitOutcome | null> {
  // A run stopped by a limit or a spent budget ended normally too: what it staged was decided and stands.
  const normal = end.kind === 'answered' || end.kind === 'tool' || end.kind === 'step_limit' || end.kind === 'credits_blocked';
  if (normal && RUN_OUTCOMES.includes(task.status)) return submitRunCart(tx, runId, now);
  const why = normal ? `the task was ${task.status.replace(/_/g, ' ')} before the run ended` : end.kind === 'frozen' ? 'the account was frozen' : 'the run did not finish';
  await discardRunCart(tx, runId, `Not released: ${why}`, now);
  return null;
}

/** `continued`: the run does not end here but makes another model call (a message came in that the last one did not read). */
export type RunEnded = { ended: boolean; continued?: boolean };

/** The limit a run reached, as the user reads it (the variable names the deployment's setting). */
const limitText = (limit?: RunLimitHit) =>
  !limit
    ? `${MAX_TOOL_STEPS} tool steps, the most one run may take`
    : limit.name === 'model_calls'
      ? `${limit.max} model calls, the most one run may make (STEWARD_RUN_MAX_MODEL_CALLS)`
      : `${limit.max} tool calls, the most one run may make (STEWARD_RUN_MAX_TOOL_CALLS)`;

export const stepLimitMessage = (limit?: RunLimitHit) => `I stopped after ${limitText(limit)}. Send a message to let me continue.`;

const stepLimitWithMessage = (limit?: RunLimitHit) => `I reached ${limitText(limit)}, and continue in a new run that reads your latest message.`;

export const frozenMessage = () =>
  'I stopped: this account is frozen (its kill switch is engaged), so I make no further model or tool calls. ' +
  'The task is on hold; once the account is released, send a message (POST /tasks/{taskId}/process) to resume it.';

/**
 * The answer the model wrote before it read the user's newer messages goes just before the
 * oldest of them, where it stood in the conversation: the next call reads the answer, then the
 * messages, and the user's feed shows them in the order they crossed. Computed in SQL so the
 * microsecond timestamps keep their precision. The run goes on after this step, so a retry of
 * it finds the run still running: the activity's id is derived from the run and the model call,
 * and a second insert does nothing.
 */
async function recordAnswerBeforeLate(tx: Tx, task: Pick<TaskRow, 'id' | 'accountId'>, text: string, runId: string, seq: number, late: number) {
  const id = createHash('sha256').update(`${runId}:answer:${seq}`).digest('hex').slice(0, 24);
  await tx
    .insert(taskActivities)
    .values({
      id,
      taskId: task.id,
      accountId: task.accountId,
      kind: 'assistant',
      content: storableText(text),
      runId,
      createdAt: sql`(SELECT a.created_at - interval '1 microsecond' FROM task_activities a
        WHERE a.task_id = ${task.id} AND a.kind IN ('user', 'contact') ORDER BY a.created_at DESC, a.id DESC LIMIT 1 OFFSET ${late - 1})`,
    })
    .onConflictDoNothing();
}

const ownerMayNotAct = async (tx: Tx, task: TaskRow) => {
  const [owner] = await tx.select({ status: users.status }).from(users).where(eq(users.id, task.userId));
  return owner !== undefined && owner.status !== 'active';
};

/**
 * The last step after a model call: the task's final move (through the transition table), the
 * closing activity, and the run row finished or failed with the tokens the provider reported
 * (null: the failure handler, which does not know them, leaves them as they are). Idempotent:
 * a run that is no longer running is left as it is.
 *
 * A message the user sent during the run is never left unanswered: when the model answered in
 * text without having read it, or a process call woke the task again after a tool ended the run,
 * the step answers `continued` and the run makes another model call. A run that may make no
 * further call finishes and queues the next one, which reads the message (the task stays
 * executing). The decision is this step's stored result, so a replay takes the same path.
 */
export async function endRun(db: Db, runId: string, end: RunEnd, usage: StewardUsage | null, modelId: string | null, now = new Date()): Promise<RunEnded> {
  return db.transaction(async (tx) => {
    const locked = await lockedRun(tx, runId);
    if (!locked || locked.run.status !== 'running') return { ended: false };
    const { run, task } = locked;
    const executing = task.status === 'executing';
    // Under the task's lock, which process takes to attach a message: a message is counted here or finds the task moved on.
    const seen = 'seenUserMessages' in end ? end.seenUserMessages : undefined;
    const late = executing && seen !== undefined ? (await userMessageCount(tx, task.id)) - seen : 0;
    let followUp = { wakeAt: new Date(now.getTime() + FOLLOW_UP_MS), headline: 'Review the answer' };
    let failed: string | null = null;
    let status: 'finished' | 'failed' | 'cancelled' = 'finished';

    // The run goes on (its cart stays open for what it stages next): the answer is kept where it stood.
    if (executing && end.kind === 'answered' && late > 0) {
      await recordAnswerBeforeLate(tx, task, end.text, runId, end.seq ?? 0, late);
      if (end.mayContinue) return { ended: false, continued: true };
    }
    if (executing && end.kind === 'tool' && end.mayContinue) return { ended: false, continued: true };

    // What the run staged is released (submitted, its mode queued with this transaction) or dropped.
    const cart = await settleRunCart(tx, runId, end, task, now);
    const awaitsPerson = cart?.next === 'wait' || cart?.next === 'start_timer';
    if (awaitsPerson) followUp = { ...followUp, headline: cart?.next === 'wait' ? 'Approve or cancel the staged actions' : 'Review the staged actions before they go out' };

    if (executing && end.kind === 'answered' && late > 0) {
      await queueRun(tx, task, 'process');
    } else if (executing && end.kind === 'tool') {
      // The tool moved the task, then a process call woke it before this step (its message, if any, went to this run).
      await queueRun(tx, task, 'process');
    } else if (executing && end.kind === 'step_limit' && late > 0) {
      await recordActivities(tx, task, [{ kind: 'assistant', content: stepLimitWithMessage(end.limit), runId }]);
      await queueRun(tx, task, 'process');
    } else if (executing && end.kind === 'answered') {
      await recordActivities(tx, task, [{ kind: 'assistant', content: end.text, runId }]);
      // With actions awaiting the user (approval, or a review window) the work is not finished: not ready for review.
      await applyChange(tx, task, { ...plan(task, 'wait', 'awaiting_user_input', followUp, now), readyForReview: !awaitsPerson }, 'wait');
    } else if (executing && end.kind === 'step_limit') {
      await recordActivities(tx, task, [{ kind: 'assistant', content: stepLimitMessage(end.limit), runId }]);
      await applyChange(tx, task, { ...plan(task, 'wait', 'awaiting_user_input', { ...followUp, headline: 'Continue the task?' }, now), readyForReview: false }, 'wait');
    } else if (end.kind === 'credits_blocked') {
      // Not a failure: the run is cancelled with the reason, and the task waits for credits (a message the user sent meanwhile is read when it resumes).
      status = 'cancelled';
      failed = 'credits_exhausted';
      if (executing) {
        await recordActivities(tx, task, [{ kind: 'assistant', content: spentBudgetMessage(end.budget, now), runId }]);
        await applyChange(tx, task, plan(task, 'block_credits', 'credits_blocked', undefined, now), 'block_credits');
        await noteBlockedTask(tx, task, end.budget.budgetId);
      }
    } else if (end.kind === 'frozen') {
      status = 'cancelled';
      failed = FROZEN_RUN_ERROR;
      if (executing) {
        await recordActivities(tx, task, [{ kind: 'assistant', content: frozenMessage(), runId }]);
        await applyChange(tx, task, plan(task, 'stop', 'on_hold', undefined, now), 'stop');
      }
    } else if (end.kind === 'stopped' && executing && (await ownerMayNotAct(tx, task))) {
      // The owner was blocked while the run went on: the task waits for them as start-run.ts holds it.
      status = 'cancelled';
      failed = 'owner_inactive';
      await holdForInactiveOwner(tx, task, now);
    } else if (end.kind === 'not_configured' || end.kind === 'failed') {
      status = 'failed';
      failed = end.kind === 'not_configured' ? 'model_not_configured' : end.message;
      if (executing) {
        await recordActivities(tx, task, [{ kind: 'assistant', content: end.message, runId }]);
        await applyChange(tx, task, plan(task, 'fail', 'error', undefined, now), 'fail');
      }
    }
    await tx
      .update(taskRuns)
      .set({ status, error: failed, endedAt: now, model: modelId ?? run.model, ...(usage ?? {}) })
      .where(eq(taskRuns.id, run.id));
    return { ended: true };
  });
}
