import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { deliverTurnReply } from '@/server/messaging/replies';
import { spentBudgetChatMessage } from '@/server/budgets/messages';
import { chatModelStep } from '@/server/agent/runtime/chat-model-step';
import { runChatToolStep, type ChatToolStep } from '@/server/agent/runtime/chat-tool-step';
import { chatTools, MAX_CHAT_TOOL_STEPS } from '@/server/chats/tools';
import { sweepTurnEvents } from '@/server/chats/turn-events';
import { beginTurn, finishTurn, type TurnEnd } from '@/server/chats/turn-run';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

const FROZEN: TurnEnd = {
  kind: 'error',
  code: 'KILL_SWITCH_ENGAGED',
  message: 'This account is frozen (its kill switch is engaged): the assistant makes no model or tool calls. Send the message again once the account is released.',
};
/** How long a turn waits before asking again (the k-th time) when calls in flight may spend what its owner's budgets have left: 2 s, doubling up to 30 s. */
const creditsRetry = (k: number) => `${Math.min(2 ** k, 30)}s`;

const stepLimit = (): TurnEnd => ({
  kind: 'answered',
  text: `I stopped after ${MAX_CHAT_TOOL_STEPS} tool steps, the most one reply may take. Send a message to let me continue.`,
});

/**
 * One chat turn (docs/chat-streaming.md), run by the engine and not by the request that started
 * it: a client that drops does not stop it. Every model call (`model-<n>`, streamed into
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
    const tools = chatTools();
    const started = await step.run('start', () => beginTurn(db(), turnId));
    if (!started.go) return started;

    let end: TurnEnd | null = null;
    for (let n = 1; !end; n++) {
      let turn = await step.run(`model-${n}`, () => chatModelStep(db(), turnId, n, tools));
      for (let k = 1; turn.kind === 'credits_busy'; k++) {
        await step.sleep(`credits-${n}-${k}`, creditsRetry(k));
        turn = await step.run(`model-${n}-${k}`, () => chatModelStep(db(), turnId, n, tools));
      }
      if (turn.kind === 'stopped') return { go: false, reason: turn.reason };
      if (turn.kind === 'credits_exhausted') end = { kind: 'error', code: 'credits_exhausted', message: spentBudgetChatMessage(turn.budget) };
      else if (turn.kind === 'not_configured') end = { kind: 'error', code: 'model_not_configured', message: turn.message };
      else if (turn.kind === 'frozen') end = FROZEN;
      else if (!turn.toolCalls.length) end = { kind: 'answered', text: turn.text };
      else {
        let done: ChatToolStep = { stop: false };
        for (const [i, call] of turn.toolCalls.entries()) {
          done = await step.run(`tool-${n}-${i}`, () => runChatToolStep(db(), turnId, n, i, call, tools));
          if (done.stop) break;
        }
        if (done.frozen) end = FROZEN;
        else if (done.stop) return { go: false, reason: 'the turn was stopped' };
        else if (n >= MAX_CHAT_TOOL_STEPS) end = stepLimit();
      }
    }
    const closing = end;
    const ended = await step.run('end', () => finishTurn(db(), turnId, closing));
    // A turn of a channel chat (the owner's email) answers on that channel, in the same thread.
    if (closing.kind === 'answered') await step.run('deliver', () => deliverTurnReply(db(), turnId));
    return ended;
  },
);

/** Every hour: events older than a day go (a client can replay a turn's events for a day). */
export const chatTurnEventsSweep = inngest.createFunction({ id: 'chat-turn-events-sweep', retries: 1, triggers: [cron('40 * * * *')] }, async ({ step }) =>
  step.run('sweep', async () => ({ deleted: await sweepTurnEvents(db()) })),
);
