import type { Db } from '@/db/client';
import { callsSettled } from '@/server/budgets/settle-later';
import { addUsage, noUsage } from '@/server/models/usage';
import type { RunEnd, RunEnded } from './end-run';
import type { LoopHost, OpenedCall, ToolStep } from './host';
import { modelStep, type ModelStep } from './model-step';
import { toolStep } from './tool-step';
import { MAX_TOOL_STEPS } from './tools/core';

/*
 * The agent loop, written once for both hosts (host.ts: a task run, a chat turn). Every model
 * call (`model-<n>`) and every tool call (`tool-<n>-<i>`) is its own durable step, so a restart
 * replays finished calls from their stored results: the model is never asked twice for a
 * finished step and no tool effect repeats. The rules that hold for every run live here:
 *
 * - credits: each model call reserves its cost first; while calls in flight may spend what the
 *   owner's budgets have left it waits (`credits-<n>-<k>`) and asks again (`model-<n>-<k>`); a
 *   spent budget ends the run (model-step.ts);
 * - limits (spec 5, Limits): at most MAX_TOOL_STEPS model calls answered with tool calls, at most
 *   the run's model calls (STEWARD_RUN_MAX_MODEL_CALLS) and tool calls (STEWARD_RUN_MAX_TOOL_CALLS),
 *   counted here so a replay counts the same; the calls past the tool-call limit are not run;
 * - the kill switch: a frozen account stops the run at its next step boundary;
 * - once a tool call ended the run (or the run stopped), the calls after it are not run.
 *
 * How the run ends is the host's (`close`): a task's final move, or a chat's reply or error.
 */

/** The engine's step tools the loop uses (Inngest's `step`, or anything that runs a named step once and replays it). */
export type LoopSteps = {
  run<T>(id: string, fn: () => Promise<T>): Promise<T>;
  sleep(id: string, duration: string): Promise<void>;
};

/** How long a run waits before asking again (the k-th time) when calls in flight may spend what its budgets have left: 2 s, doubling up to 30 s. */
const creditsRetry = (k: number) => `${Math.min(2 ** k, 30)}s`;

/** How the loop ended: `end` as decided, and what the host's closing step answered (null: there was nothing to close). */
export type LoopOutcome = { end: RunEnd; ended: RunEnded | null };

/** The end a model step's result decides by itself (no tool calls to run), or null. */
function endOf(turn: ModelStep, n: number, mayContinue: boolean): RunEnd | null {
  if (turn.kind === 'stopped') return { kind: 'stopped', reason: turn.reason };
  if (turn.kind === 'not_configured') return { kind: 'not_configured', message: turn.message };
  if (turn.kind === 'frozen') return { kind: 'frozen' };
  if (turn.kind === 'credits_exhausted') return { kind: 'credits_blocked', budget: turn.budget };
  if (turn.kind === 'answer' && !turn.toolCalls.length) return { kind: 'answered', text: turn.text, seq: n - 1, seenUserMessages: turn.seenUserMessages, mayContinue };
  return null;
}

export async function agentLoop<Opened extends OpenedCall, Subject>(step: LoopSteps, db: () => Db, host: LoopHost<Opened, Subject>): Promise<LoopOutcome> {
  const { limits } = host;
  let usage = noUsage();
  let modelId: string | null = null;
  let toolCalls = 0;

  for (let n = 1; ; n++) {
    let turn = await step.run(`model-${n}`, async () => modelStep(db(), host, n, await host.tools(db())));
    for (let k = 1; turn.kind === 'credits_busy'; k++) {
      await step.sleep(`credits-${n}-${k}`, creditsRetry(k));
      turn = await step.run(`model-${n}-${k}`, async () => modelStep(db(), host, n, await host.tools(db())));
    }
    // Another model call stays within MAX_TOOL_STEPS and the run's model-call limit.
    const mayContinue = n < Math.min(MAX_TOOL_STEPS, limits.maxModelCalls);
    let how = endOf(turn, n, mayContinue);
    if (turn.kind === 'answer') {
      usage = addUsage(usage, turn.usage);
      modelId = turn.modelId;
    }
    if (!how && turn.kind === 'answer') {
      const answer = turn;
      let done: ToolStep = { endsRun: false };
      for (const [i, call] of answer.toolCalls.entries()) {
        // Past the run's tool-call limit, the calls the model still asked for are not run.
        if (toolCalls >= limits.maxToolCalls) break;
        toolCalls++;
        const at = { n, i, call, text: i === 0 ? answer.text : '', seenUserMessages: answer.seenUserMessages };
        done = await step.run(`tool-${n}-${i}`, async () => toolStep(db(), host, at, await host.tools(db())));
        // Once a call ended the run (complete_task, ask_user, a frozen account...), the calls after it are not run.
        if (done.endsRun) break;
      }
      const seen = answer.seenUserMessages;
      if (done.frozen) how = { kind: 'frozen' };
      else if (done.endsRun) how = { kind: 'tool', mayContinue };
      else if (toolCalls >= limits.maxToolCalls) how = { kind: 'step_limit', seenUserMessages: seen, limit: { name: 'tool_calls', max: limits.maxToolCalls } };
      else if (!mayContinue) {
        const byModelCalls = limits.maxModelCalls < MAX_TOOL_STEPS;
        how = { kind: 'step_limit', seenUserMessages: seen, ...(byModelCalls ? { limit: { name: 'model_calls' as const, max: limits.maxModelCalls } } : {}) };
      }
    }
    if (!how) continue;
    // Whoever sees the run or turn ended sees what its calls cost on its budgets (settle-later.ts).
    await callsSettled(Array.from({ length: n }, (_, i) => host.callRef(i + 1)));
    const closing = host.close(db(), how, n, { usage, modelId });
    if (!closing) return { end: how, ended: null };
    // One closing step per model call where the host has it so (`end-<n>`): it may answer that the
    // run goes on (a message came in that the model did not read), and a step id never changes meaning on replay.
    const ended = await step.run(closing.id, closing.run);
    if (ended.continued) continue;
    return { end: how, ended };
  }
}
