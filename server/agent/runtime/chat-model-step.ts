import { storableJson, storableText } from '@/db/storable';
import { and, eq, sql } from 'drizzle-orm';
import { streamText } from 'ai';
import { modelTelemetry } from '../models/telemetry';
import type { Db } from '@/db/client';
import { chatTurnEvents, type ChatTurnRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { ModelNotConfiguredError } from '@/server/agent/models/errors';
import { languageModel, type ResolvedModel } from '@/server/agent/models/language-model';
import { creditsFor } from '@/server/agent/models/prices';
import type { ModelTier } from '@/server/agent/models/tiers';
import { stewardUsage, type StewardUsage } from '@/server/agent/models/usage';
import { releaseCall, reserveCall, settleCall, type SpentBudget } from '@/server/budgets/reserve';
import type { ChatToolRegistry } from '@/server/chats/tools/registry';
import { appendTurnEvents, TurnEventWriter } from '@/server/chats/turn-events';
import { publishTurnEvents } from '@/server/chats/stream-hub';
import { turnWithChat, type TurnChat } from '@/server/chats/turn-run';
import { recordChatModelCall } from '@/server/chats/usage';
import { chatContext } from './chat-context';
import { chatOwnerActor } from './chat-owner';
import { accountFrozen } from './owner-actor';
import type { ToolCallRequest } from './model-turn';

/** One model call of a turn, as the step stores it (replayed on restart instead of calling again). */
export type ChatModelTurn =
  | {
      kind: 'answer';
      text: string;
      toolCalls: ToolCallRequest[];
      usage: StewardUsage;
      modelId: string;
      finishReason: string;
      tier: ModelTier;
      servedBy: ModelTier;
      billable: boolean;
    }
  | { kind: 'not_configured'; message: string }
  | { kind: 'stopped'; reason: string }
  | { kind: 'frozen' }
  /** Calls in flight may spend what the owner's budgets have left: the turn asks again shortly (no call was made). */
  | { kind: 'credits_busy' }
  /** A budget covering the owner is spent: the turn ends with the `error` event `credits_exhausted`. */
  | { kind: 'credits_exhausted'; budget: SpentBudget };

/** The chat's reasoning effort as `reasoning_effort`: low, medium and high as they are; xhigh and max as high, the highest value OpenAI-compatible servers share. */
export function reasoningEffort(effort: string | null | undefined): string | undefined {
  if (!effort) return undefined;
  return effort === 'low' || effort === 'medium' ? effort : 'high';
}

/** The first event an earlier, interrupted attempt of this model call wrote, if any. */
async function interruptedAttempt(db: Db, turnId: string, step: number): Promise<number | null> {
  const [row] = await db
    .select({ from: sql<number | null>`min(${chatTurnEvents.seq})` })
    .from(chatTurnEvents)
    .where(and(eq(chatTurnEvents.turnId, turnId), sql`(${chatTurnEvents.data}->>'step')::int = ${step}`));
  return row?.from ?? null;
}

/**
 * One durable model call of a chat turn (`step` counts from 1), streamed: every text delta the
 * `ai` SDK's streamText yields becomes an `interim_message` event as it arrives, then the usage
 * row and (with tool calls) a `status_update` naming them are written together.
 *
 * A step that runs again (the process died mid-call, or the call failed and the engine retries)
 * calls the model anew: it first writes `status_update {state: "restarted", step, supersedesFrom}`,
 * which voids every event of this step from `supersedesFrom` on, then streams the new attempt
 * under new numbers. Stored events are never rewritten, so a reconnecting client replays exactly
 * what was sent, the void attempt included, and drops it at the `restarted` event.
 *
 * Before the call its estimated cost is reserved against every budget covering the chat's owner
 * (server/budgets/reserve.ts, named `turn:<turnId>:<step>` so a retried step reserves once); the
 * actual cost is settled with the usage row, and a call that fails releases its reservation.
 */
export async function chatModelStep(db: Db, turnId: string, step: number, tools: ChatToolRegistry, now = new Date()): Promise<ChatModelTurn> {
  const found = await turnWithChat(db, turnId);
  if (!found) return { kind: 'stopped', reason: 'the turn or its chat no longer exists' };
  const { turn, chat } = found;
  if (turn.status !== 'running') return { kind: 'stopped', reason: `the turn is ${turn.status}` };
  const actor = await chatOwnerActor(db, chat, turnId);
  if (!actor) return { kind: 'stopped', reason: 'the chat’s owner can no longer act' };
  if (accountFrozen(actor)) return { kind: 'frozen' };

  let resolved;
  try {
    resolved = await languageModel(db, chat.accountId, turn.modelTier);
  } catch (e) {
    if (e instanceof ModelNotConfiguredError) return { kind: 'not_configured', message: e.message };
    throw e;
  }
  const ref = `turn:${turnId}:${step}`;
  const reservation = await reserveCall(db, { accountId: chat.accountId, userId: chat.userId, tier: turn.modelTier, ref }, now);
  if (reservation.kind === 'busy') return { kind: 'credits_busy' };
  if (reservation.kind === 'exhausted') return { kind: 'credits_exhausted', budget: reservation.budget };
  const held = reservation.kind === 'reserved';
  try {
    return await streamedCall(db, turnId, step, tools, { actor, chat, turn, resolved, held, ref }, now);
  } catch (e) {
    if (held) await db.transaction((tx) => releaseCall(tx, ref));
    throw e;
  }
}

type CallInput = {
  actor: UserActor;
  chat: TurnChat;
  turn: ChatTurnRow;
  resolved: ResolvedModel;
  /** Whether a reservation holds the call's cost (settled with the usage row). */
  held: boolean;
  ref: string;
};

/** The model call itself, streamed into events, then its usage row (and the settled reservation) with the tool-calls event. */
async function streamedCall(db: Db, turnId: string, step: number, tools: ChatToolRegistry, input: CallInput, now: Date): Promise<ChatModelTurn> {
  const { actor, chat, turn, resolved, held, ref } = input;
  const [context, interrupted] = await Promise.all([chatContext(db, actor, chat, turn, now), interruptedAttempt(db, turnId, step)]);

  const writer = new TurnEventWriter(db, turnId);
  if (interrupted !== null) writer.push({ kind: 'status_update', data: { state: 'restarted', step, supersedesFrom: interrupted } });
  writer.push({ kind: 'status_update', data: { state: 'thinking', step } });
  const effort = reasoningEffort(chat.effort);
  const result = streamText({
    model: resolved.model,
    ...context,
    tools: tools.definitions(),
    // The step is retried by the durable engine; one quick retry here absorbs a dropped connection.
    maxRetries: 1,
    experimental_telemetry: modelTelemetry('chat-turn'),
    ...(effort ? { providerOptions: { steward: { reasoningEffort: effort } } } : {}),
  });
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta' && part.text) writer.push({ kind: 'interim_message', data: { step, delta: part.text } });
    else if (part.type === 'error') throw part.error instanceof Error ? part.error : new Error(String(part.error));
  }
  await writer.flush();
  const [text, toolCalls, usage, finishReason] = await Promise.all([result.text, result.toolCalls, result.usage, result.finishReason]);
  const answer: ChatModelTurn = {
    kind: 'answer',
    // What the model wrote may echo anything it read: as Postgres can store it, for every write that follows (db/storable.ts).
    text: storableText(text),
    toolCalls: toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: storableJson(c.input ?? {}) })),
    usage: stewardUsage(usage),
    modelId: resolved.modelId,
    finishReason,
    tier: resolved.tier,
    servedBy: resolved.servedBy,
    billable: resolved.billable,
  };
  const priced = creditsFor(answer.servedBy, answer.usage, { billable: answer.billable });
  const events = await db.transaction(async (tx) => {
    await recordChatModelCall(tx, {
      turnId,
      seq: step - 1,
      modelTier: answer.tier,
      model: answer.modelId,
      usage: answer.usage,
      chargedCredits: priced.chargedCredits,
      isBillable: priced.isBillable,
    });
    if (held) await settleCall(tx, ref, answer.tier, priced.chargedCredits);
    if (!answer.toolCalls.length) return [];
    return appendTurnEvents(tx, turnId, [{ kind: 'status_update', data: { state: 'tool_calls', step, tools: answer.toolCalls.map((c) => c.toolName) } }]);
  });
  publishTurnEvents(turnId, events);
  return answer;
}
