import { sharedDatabase } from '@/db/client';
import { addUsage, noUsage } from '@/server/agent/models/usage';
import { endRun, type RunEnd } from '@/server/agent/runtime/end-run';
import { modelStep } from '@/server/agent/runtime/model-step';
import { recordRunTrace } from '@/server/agent/runtime/run-trace';
import { startRun } from '@/server/agent/runtime/start-run';
import { runToolStep, type ToolStep } from '@/server/agent/runtime/tool-step';
import { MAX_TOOL_STEPS, taskToolsForRun } from '@/server/agent/runtime/tools/core';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/**
 * One run of a task (spec 4: the durable runtime). Every model call (`model-<n>`) and every tool
 * call (`tool-<n>-<i>`) is its own step (a model step also records its usage row), so a restart
 * replays finished calls from their stored results: the model is never asked twice for a finished
 * step and no tool effect repeats. One run per task at a time (concurrency keyed by the task id).
 * The run ends per "How a run ends" (server/agent/runtime/end-run.ts), or goes on when a message
 * of the user arrived that the last model call did not read; a frozen account (kill switch) stops
 * it at the next step boundary with the task on hold; a run that keeps failing ends with the task
 * in error. Every ended run is then recorded as a trace of the account's prompt API (run-trace.ts).
 */
export const taskRun = inngest.createFunction(
  {
    id: 'task-run',
    retries: 3,
    concurrency: { key: 'event.data.taskId', limit: 1 },
    triggers: [events.taskRunRequested],
    onFailure: async ({ event, error }) => {
      const runId = (event.data.event.data as { runId?: string }).runId;
      if (!runId) return;
      await endRun(db(), runId, { kind: 'failed', message: `The run failed and was stopped: ${error.message}` }, null, null);
      await recordRunTrace(db(), runId);
    },
  },
  async ({ event, step }) => {
    const { runId } = event.data;
    // Built inside each step (the owner's MCP skills are read from the database): a step replayed
    // from its stored result builds nothing, and a step that runs sees the skills as they are.
    const tools = () => taskToolsForRun(db(), runId);
    const started = await step.run('start', () => startRun(db(), runId));
    if (!started.go) return started;

    let usage = noUsage();
    let modelId: string | null = null;

    for (let n = 1; ; n++) {
      const turn = await step.run(`model-${n}`, async () => modelStep(db(), runId, n - 1, await tools()));
      // Another model call stays within the run's budget of MAX_TOOL_STEPS calls.
      const mayContinue = n < MAX_TOOL_STEPS;
      let how: RunEnd | null = null;
      if (turn.kind === 'stopped') how = { kind: 'stopped', reason: turn.reason };
      else if (turn.kind === 'not_configured') how = { kind: 'not_configured', message: turn.message };
      else if (turn.kind === 'frozen') how = { kind: 'frozen' };
      else {
        usage = addUsage(usage, turn.usage);
        modelId = turn.modelId;
        if (!turn.toolCalls.length) how = { kind: 'answered', text: turn.text, seq: n - 1, seenUserMessages: turn.seenUserMessages, mayContinue };
        else {
          let done: ToolStep = { endsRun: false };
          for (const [i, call] of turn.toolCalls.entries()) {
            done = await step.run(`tool-${n}-${i}`, async () => runToolStep(db(), runId, call, i === 0 ? turn.text : '', await tools(), turn.seenUserMessages));
            // Once a call ended the run (complete_task, ask_user, a frozen account...), the calls after it are not run.
            if (done.endsRun) break;
          }
          if (done.frozen) how = { kind: 'frozen' };
          else if (done.endsRun) how = { kind: 'tool', mayContinue };
          else if (!mayContinue) how = { kind: 'step_limit', seenUserMessages: turn.seenUserMessages };
        }
      }
      if (!how) continue;
      // One end step per model call (`end-<n>`): it may answer that the run goes on (a message
      // came in that the model did not read), and a step id never changes meaning on replay.
      const closing = how;
      const ended = await step.run(`end-${n}`, () => endRun(db(), runId, closing, usage, modelId));
      if (ended.continued) continue;
      // The run's trace is its own step after the end: a trace that fails to record retries alone
      // and never undoes the task's final move.
      await step.run('trace', () => recordRunTrace(db(), runId));
      return ended;
    }
  },
);
