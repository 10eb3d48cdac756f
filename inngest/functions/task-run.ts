import { eq } from 'drizzle-orm';
import { sharedDatabase } from '@/db/client';
import { taskRuns } from '@/db/schema';
import { LIMIT_VARIABLES } from '@/server/accounts/limits';
import { endRun } from '@/server/agent/runtime/end-run';
import { agentLoop } from '@/server/agent/runtime/loop';
import { recordRunTrace } from '@/server/agent/runtime/run-trace';
import { runsToWake, startRun, type RunLimits } from '@/server/agent/runtime/start-run';
import { taskHost } from '@/server/agent/runtime/task-host';
import { inngest } from '../client';
import { events } from '../events';
import { loopSteps } from '../loop-steps';

const db = () => sharedDatabase().db;

/** How long a run waits for a slot before it asks again anyway: the safety net for a grant it missed. */
const SLOT_WAIT = '30s';

/**
 * Matches the grant addressed to this run. Written for both readings of `event` and `async`
 * (Inngest: `event` is the run's trigger and `async` the awaited event; the built-in executor has
 * them the other way round): the trigger carries no `grantFor`, so only the grant's side matches.
 */
function grantedTo(runId: string): string | undefined {
  // Ids are hex; anything else is never put into an expression (the run then wakes on any grant and asks again).
  if (!/^[A-Za-z0-9_-]+$/.test(runId)) return undefined;
  return `(has(async.data.grantFor) && async.data.grantFor == '${runId}') || (has(event.data.grantFor) && event.data.grantFor == '${runId}')`;
}

/** A run's slot is free again: the user's runs waiting longest are told, one grant each. */
async function grantSlots(userId: string | null, accountId: string) {
  if (!userId) return;
  const wake = await runsToWake(db(), userId, accountId);
  if (wake.length) await inngest.send(wake.map((grantFor) => events.taskRunSlotGranted.create({ grantFor, userId, accountId })));
}

/** A start stored before runs carried their limits: the spec's defaults (a replay must decide as the first pass did). */
const DEFAULT_LIMITS: RunLimits = { maxModelCalls: LIMIT_VARIABLES.runMaxModelCalls.fallback, maxToolCalls: LIMIT_VARIABLES.runMaxToolCalls.fallback };

/**
 * One run of a task (spec 4: the durable runtime): the agent loop (server/agent/runtime/loop.ts)
 * with the task run as its host (task-host.ts). Every model call (`model-<n>`) and every tool
 * call (`tool-<n>-<i>`) is its own step (a model step also records its usage row), so a restart
 * replays finished calls from their stored results: the model is never asked twice for a finished
 * step and no tool effect repeats. One run per task at a time (concurrency keyed by the task id).
 *
 * Limits that hold under concurrency (spec 5, Limits): the run starts only when its user has a
 * free run slot, else it waits for one (`slot-<k>`: a wait holds no worker) and asks again
 * (`start-<k>`); it makes at most STEWARD_RUN_MAX_MODEL_CALLS model calls and
 * STEWARD_RUN_MAX_TOOL_CALLS tool calls (and 25 tool steps), counted by this loop, so a replay
 * counts the same; every model call reserves its cost against the owner's budgets first, waiting
 * (`credits-<n>-<k>`, then `model-<n>-<k>`) while calls in flight may spend what is left, and a
 * spent budget ends the run with the task in credits_blocked.
 *
 * The run ends per "How a run ends" (server/agent/runtime/end-run.ts), or goes on when a message
 * of the user arrived that the last model call did not read; a frozen account (kill switch) stops
 * it at the next step boundary with the task on hold; a run that keeps failing ends with the task
 * in error. Every ended run is then recorded as a trace of the account's prompt API (run-trace.ts),
 * and its user's waiting runs are told a slot is free.
 */
export const taskRun = inngest.createFunction(
  {
    id: 'task-run',
    retries: 3,
    concurrency: { key: 'event.data.taskId', limit: 1 },
    triggers: [events.taskRunRequested],
    onFailure: async ({ event, error }) => {
      const { runId, accountId } = event.data.event.data as { runId?: string; accountId?: string };
      if (!runId) return;
      await endRun(db(), runId, { kind: 'failed', message: `The run failed and was stopped: ${error.message}` }, null, null);
      await recordRunTrace(db(), runId);
      const [run] = await db().select({ userId: taskRuns.userId }).from(taskRuns).where(eq(taskRuns.id, runId));
      if (accountId) await grantSlots(run?.userId ?? null, accountId);
    },
  },
  async ({ event, step }) => {
    const { runId, accountId } = event.data;
    let started = await step.run('start', () => startRun(db(), runId));
    for (let k = 1; !started.go && 'wait' in started; k++) {
      await step.waitForEvent(`slot-${k}`, { event: events.taskRunSlotGranted, timeout: SLOT_WAIT, if: grantedTo(runId) });
      started = await step.run(`start-${k}`, () => startRun(db(), runId));
    }
    if (!started.go) return started;
    const limits = started.limits ?? DEFAULT_LIMITS;
    const userId = started.userId ?? null;

    const { ended } = await agentLoop(loopSteps(step), db, taskHost(runId, limits));
    // The run's trace is its own step after the end: a trace that fails to record retries alone
    // and never undoes the task's final move.
    await step.run('trace', () => recordRunTrace(db(), runId));
    const wake = userId ? await step.run('slot-next', () => runsToWake(db(), userId, accountId)) : [];
    if (wake.length && userId) await step.sendEvent('slot-granted', wake.map((grantFor) => events.taskRunSlotGranted.create({ grantFor, userId, accountId })));
    return ended;
  },
);
