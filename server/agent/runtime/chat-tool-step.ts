import { storableJson } from '@/db/storable';
import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chatToolCalls } from '@/db/schema';
import { AppError } from '@/server/http/errors';
import { publishTurnEvents } from '@/server/chats/stream-hub';
import type { ChatToolOutcome, ChatToolRegistry } from '@/server/chats/tools/registry';
import { appendTurnEvents } from '@/server/chats/turn-events';
import { lockedTurn } from '@/server/chats/turn-run';
import { chatOwnerActor } from './chat-owner';
import type { ToolCallRequest } from './model-turn';
import { accountFrozen } from './owner-actor';

export type ChatToolStep = { stop: boolean; frozen?: boolean };

function refusal(e: unknown): ChatToolOutcome {
  if (e instanceof AppError) return { output: { error: e.message, ...(Object.keys(e.extra).length ? { details: e.extra } : {}) } };
  throw e;
}

/**
 * One tool call of a chat turn as its own step: the effect, the call's row and its
 * `status_update {state: "tool_result"}` event in one transaction, so a step retried after a crash
 * finds its row (by model call and place) and neither repeats the effect nor the event. Input is
 * validated against the tool's schema; a refused or unknown call is answered to the model as an
 * error it can correct. While the account is frozen nothing is done and the turn stops.
 */
export async function runChatToolStep(
  db: Db,
  turnId: string,
  step: number,
  position: number,
  call: ToolCallRequest,
  tools: ChatToolRegistry,
  now = new Date(),
): Promise<ChatToolStep> {
  const done = await db.transaction(async (tx) => {
    const locked = await lockedTurn(tx, turnId);
    if (!locked || locked.turn.status !== 'running') return { stop: true, events: [] };
    const { turn, chat } = locked;
    const [existing] = await tx
      .select({ id: chatToolCalls.id })
      .from(chatToolCalls)
      .where(and(eq(chatToolCalls.turnId, turn.id), eq(chatToolCalls.step, step), eq(chatToolCalls.position, position)));
    if (existing) return { stop: false, events: [] };
    const actor = await chatOwnerActor(tx, chat, turn.id);
    if (actor && accountFrozen(actor)) return { stop: true, frozen: true, events: [] };

    const tool = tools.get(call.toolName);
    let outcome: ChatToolOutcome;
    if (!actor) outcome = { output: { error: 'The chat’s owner can no longer act; nothing was done.' } };
    else if (!tool) outcome = { output: { error: `There is no tool ${call.toolName}. Tools: ${tools.names().join(', ')}` } };
    else {
      const parsed = tool.input.safeParse(call.input);
      if (!parsed.success) {
        outcome = { output: { error: 'Invalid input', issues: parsed.error.issues.map((i) => ({ field: i.path.join('.'), problem: i.message })) } };
      } else {
        // A savepoint: a refused call leaves none of its writes, and its refusal is still recorded.
        outcome = await tx.transaction((sp) => tool.handler(sp, actor, chat, parsed.data, { turnId: turn.id, now })).catch(refusal);
      }
    }
    await tx.insert(chatToolCalls).values({
      turnId: turn.id,
      chatId: chat.id,
      accountId: chat.accountId,
      step,
      position,
      callId: call.toolCallId,
      toolName: call.toolName,
      // The model's arguments and the tool's answer (outside content) as Postgres can hold them (db/storable.ts).
      input: storableJson(call.input ?? {}),
      output: storableJson(outcome.output ?? null),
      taskId: outcome.taskId ?? null,
    });
    const failed = Boolean(outcome.output && typeof outcome.output === 'object' && 'error' in outcome.output);
    const events = await appendTurnEvents(tx, turn.id, [
      { kind: 'status_update', data: { state: 'tool_result', step, tool: call.toolName, callId: call.toolCallId, ok: !failed, ...(outcome.taskId ? { taskId: outcome.taskId } : {}) } },
    ]);
    return { stop: false, events };
  });
  publishTurnEvents(turnId, done.events);
  return { stop: done.stop, ...('frozen' in done && done.frozen ? { frozen: true } : {}) };
}
