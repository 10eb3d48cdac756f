import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { LIMIT_VARIABLES } from '@/server/accounts/limits';
import { chatHost } from '@/server/chats/chat-host';
import { agentLoop } from '@/server/agent/runtime/loop';
import type { RunLimits } from '@/server/agent/runtime/start-run';
import { deliverTurnReply } from '@/server/messaging/replies';
import { sweepTurnEvents } from '@/server/chats/turn-events';
import { beginTurn, finishTurn } from '@/server/chats/turn-run';
import { inngest } from '../client';
import { events } from '../events';
import { loopSteps } from '../loop-steps';

const db = () => sharedDatabase().db;

/** A start stored before turns carried their limits: the spec's defaults (a replay must decide as the first pass did). */
const DEFAULT_LIMITS: RunLimits = { maxModelCalls: LIMIT_VARIABLES.runMaxModelCalls.fallback, maxToolCalls: LIMIT_VARIABLES.runMaxToolCalls.fallback };

/**
 * One chat turn (docs/chat-streaming.md), run by the engine and not by the request that started
 * it: a client that drops does not stop it. It is the agent loop (server/agent/runtime/loop.ts)
 * with the chat turn as its host (chat-host.ts), so the run limits of spec 5 (model calls, tool
 * calls) hold for it as for a task run. Every model call (`model-<n>`, streamed into
 * `interim_message` events) and every tool call (`tool-<n>-<i>`) is its own step, so after a
 * restart finished calls are replayed from their stored results and no tool effect repeats. Turns
 * of one chat run one at a time, in order. The end step (`end`) saves the reply and writes the
 * final `message` event, or the final `error`; a turn that keeps failing gets `error` from onFailure.
 * Every model call reserves its cost against the owner's budgets first (server/budgets/reserve.ts):
 * while calls in flight may spend what is left the turn waits (`credits-<n>-<k>`) and asks again
 * (`model-<n>-<k>`); a spent budget ends it with the `error` event `credits_exhausted`.
 */
export const chatTurn = inngest.createFunction(
  {
    id: 'chat-turn',
    retries: 3,
    concurrency: { key: 'event.data.chatId', limit: 1 },
    triggers: [events.chatTurnRequested],
    onFailure: async ({ event, error }) => {
      const turnId = (event.data.event.data as { turnId?: string }).turnId;
      if (!turnId) return;
      await finishTurn(db(), turnId, { kind: 'error', code: 'turn_failed', message: `The turn failed and was stopped: ${error.message}` });
    },
  },
  async ({ event, step }) => {
    const { turnId } = event.data;
    const started = await step.run('start', () => beginTurn(db(), turnId));
    if (!started.go) return started;
    const limits = 'limits' in started && started.limits ? started.limits : DEFAULT_LIMITS;
    const { end, ended } = await agentLoop(loopSteps(step), db, chatHost(turnId, limits));
    if (!ended) return { go: false, reason: end.kind === 'stopped' ? end.reason : 'the turn was stopped' };
    // A turn of a channel chat (the owner's email) answers on that channel, in the same thread.
    if (end.kind === 'answered' || end.kind === 'step_limit') await step.run('deliver', () => deliverTurnReply(db(), turnId));
    return ended;
  },
);

/** Every hour: events older than a day go (a client can replay a turn's events for a day). */
export const chatTurnEventsSweep = inngest.createFunction({ id: 'chat-turn-events-sweep', retries: 1, triggers: [cron('40 * * * *')] }, async ({ step }) =>
  step.run('sweep', async () => ({ deleted: await sweepTurnEvents(db()) })),
);
