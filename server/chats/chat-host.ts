import { storableJson } from '@/db/storable';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chats, chatToolCalls, chatTurnEvents, chatTurns } from '@/db/schema';
import { stepLimitMessage, type RunEnd } from '@/server/agent/runtime/end-run';
import type { AnswerStream, LoopHost, OpenedCall } from '@/server/agent/runtime/host';
import { chatOwnerActor } from '@/server/agent/runtime/owner-actor';
import type { RunLimits } from '@/server/agent/runtime/start-run';
import { spentBudgetChatMessage } from '@/server/budgets/messages';
import { reservationOf, reservationSql, type Reservation, type ReserveResult } from '@/server/budgets/reserve';
import { publishTurnEvents } from './stream-hub';
import { chatTools, MAX_CHAT_TOOL_STEPS } from './tools';
import type { ChatRef } from './tools/registry';
import { appendTurnEvents, TurnEventWriter } from './turn-events';
import { finishTurn, lockedTurn, turnWithChat, type TurnChat, type TurnEnd } from './turn-run';
import { chatContext } from './chat-conversation';

/*
 * The chat turn as a host of the agent loop (server/agent/runtime/host.ts): the turn and its chat
 * are the rows, the model reads the chat up to the message the turn answers (chat-conversation.ts),
 * the answer streams into the turn's events as the model writes it (`interim_message`), every tool
 * call is a chat_tool_calls row with its `tool_result` event, and the turn ends with the chat's
 * reply (the `message` event) or an `error` event (turn-run.ts). It lives with the chats, above the
 * loop, since it writes their rows; the loop knows it only as a LoopHost. The chat keeps no taint
 * mark of its own: a task the turn opens asks the chat's taint then (taint.ts).
 */

type OpenedTurn = OpenedCall & { chat: TurnChat; turn: { id: string; messageId: string } };

/** The first event an earlier, interrupted attempt of this model call wrote, if any. */
async function interruptedAttempt(db: Db, turnId: string, step: number): Promise<number | null> {
  const [row] = await db
    .select({ from: sql<number | null>`min(${chatTurnEvents.seq})` })
    .from(chatTurnEvents)
    .where(and(eq(chatTurnEvents.turnId, turnId), sql`(${chatTurnEvents.data}->>'step')::int = ${step}`));
  return row?.from ?? null;
}

/**
 * Model call `step` streamed into the turn's events: every text delta becomes an
 * `interim_message` event as it arrives. A step that runs again (the process died mid-call, or the
 * call failed and the engine retries) calls the model anew: it first writes
 * `status_update {state: "restarted", step, supersedesFrom}`, which voids every event of this step
 * from `supersedesFrom` on, then streams the new attempt under new numbers. Stored events are
 * never rewritten, so a reconnecting client replays exactly what was sent, the void attempt
 * included, and drops it at the `restarted` event.
 */
function turnStream(db: Db, turnId: string, step: number): AnswerStream {
  const writer = new TurnEventWriter(db, turnId);
  return {
    async begin() {
      const interrupted = await interruptedAttempt(db, turnId, step);
      if (interrupted !== null) writer.push({ kind: 'status_update', data: { state: 'restarted', step, supersedesFrom: interrupted } });
      writer.push({ kind: 'status_update', data: { state: 'thinking', step } });
    },
    delta: (text) => writer.push({ kind: 'interim_message', data: { step, delta: text } }),
    end: () => writer.flush(),
  };
}

const FROZEN: TurnEnd = {
  kind: 'error',
  code: 'KILL_SWITCH_ENGAGED',
  message: 'This account is frozen (its kill switch is engaged): the assistant makes no model or tool calls. Send the message again once the account is released.',
};

/** How a turn ends for the loop's end; null: the turn was stopped (or moved on) and there is nothing to close. */
export function turnEnd(end: RunEnd): TurnEnd | null {
  switch (end.kind) {
    case 'answered':
      return { kind: 'answered', text: end.text };
    case 'step_limit':
      // The tool steps of one reply; a run limit of the account (spec 5, Limits) is named with its setting.
      return { kind: 'answered', text: end.limit ? stepLimitMessage(end.limit) : `I stopped after ${MAX_CHAT_TOOL_STEPS} tool steps, the most one reply may take. Send a message to let me continue.` };
    case 'credits_blocked':
      return { kind: 'error', code: 'credits_exhausted', message: spentBudgetChatMessage(end.budget) };
    case 'not_configured':
      return { kind: 'error', code: 'model_not_configured', message: end.message };
    case 'frozen':
      return FROZEN;
    case 'failed':
      return { kind: 'error', code: 'turn_failed', message: end.message };
    case 'stopped':
    case 'tool':
      return null;
  }
}

/** The chat turn `turnId` as the loop's host; `limits` are its account's run limits when it began. */
export function chatHost(turnId: string, limits: RunLimits = { maxModelCalls: Infinity, maxToolCalls: Infinity }): LoopHost<OpenedTurn, ChatRef> {
  return {
    telemetry: 'chat-turn',
    owner: { turnId },
    limits,
    callRef: (n) => `turn:${turnId}:${n}`,

    async reserve(db, ref, now, reserving): Promise<Reservation> {
      if (!reserving) return { kind: 'none' };
      // Folded into the read of the turn and its chat: a turn that no longer runs reserves nothing.
      const reserved = sql<ReserveResult | null>`CASE WHEN ${chatTurns.status} = 'running' THEN ${reservationSql({ ref, accountId: chatTurns.accountId, userId: chats.userId, tier: chatTurns.modelTier }, now)} END`;
      const [row] = await db.select({ reserved }).from(chatTurns).innerJoin(chats, eq(chats.id, chatTurns.chatId)).where(eq(chatTurns.id, turnId));
      return row?.reserved ? reservationOf(row.reserved, ref) : { kind: 'none' };
    },

    async open(db) {
      const found = await turnWithChat(db, turnId);
      if (!found) return { stopped: 'the turn or its chat no longer exists' };
      const { turn, chat } = found;
      if (turn.status !== 'running') return { stopped: `the turn is ${turn.status}` };
      const actor = await chatOwnerActor(db, chat, turnId);
      if (!actor) return { stopped: 'the chat’s owner can no longer act' };
      return { actor, accountId: chat.accountId, tier: turn.modelTier, effort: chat.effort, chat, turn };
    },

    context: async (db, { actor, chat, turn }, now) => ({ ...(await chatContext(db, actor, chat, turn, now)), taint: [] }),

    stream: (db, n) => turnStream(db, turnId, n),

    // With tool calls, a `status_update` naming them, written with the usage row.
    async recorded(tx, n, answer) {
      if (!answer.toolCalls.length) return;
      const events = await appendTurnEvents(tx, turnId, [{ kind: 'status_update', data: { state: 'tool_calls', step: n, tools: answer.toolCalls.map((c) => c.toolName) } }]);
      return () => publishTurnEvents(turnId, events);
    },

    tools: async () => chatTools(),

    async begin(tx, { n, i }) {
      const locked = await lockedTurn(tx, turnId);
      if (!locked || locked.turn.status !== 'running') return { endsRun: true };
      const { turn, chat } = locked;
      const [existing] = await tx
        .select({ id: chatToolCalls.id })
        .from(chatToolCalls)
        .where(and(eq(chatToolCalls.turnId, turn.id), eq(chatToolCalls.step, n), eq(chatToolCalls.position, i)));
      if (existing) return { endsRun: false };
      return { subject: chat, runId: turn.id, owner: chat };
    },

    ownerGone: { output: { error: 'The chat’s owner can no longer act; nothing was done.' } },

    async record(tx, { subject: chat }, { n, i, call }, outcome) {
      await tx.insert(chatToolCalls).values({
        turnId,
        chatId: chat.id,
        accountId: chat.accountId,
        step: n,
        position: i,
        callId: call.toolCallId,
        toolName: call.toolName,
        // The model's arguments and the tool's answer (outside content) as Postgres can hold them (db/storable.ts).
        input: storableJson(call.input ?? {}),
        output: storableJson(outcome.output ?? null),
        taskId: outcome.taskId ?? null,
      });
      const failed = Boolean(outcome.output && typeof outcome.output === 'object' && 'error' in outcome.output);
      const events = await appendTurnEvents(tx, turnId, [
        { kind: 'status_update', data: { state: 'tool_result', step: n, tool: call.toolName, callId: call.toolCallId, ok: !failed, ...(outcome.taskId ? { taskId: outcome.taskId } : {}) } },
      ]);
      return () => publishTurnEvents(turnId, events);
    },

    close(db, end) {
      const closing = turnEnd(end);
      return closing ? { id: 'end', run: () => finishTurn(db, turnId, closing) } : null;
    },
  };
}
