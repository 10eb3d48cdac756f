import { and, asc, eq, isNotNull } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { chats, chatToolCalls, chatTurns, type ChatTurnRow } from '@/db/schema';
import { limitsFor } from '@/server/accounts/limits';
import { appendChatMessage } from './messages';
import { presentChatMessage } from './present';
import { publishTurnEvents } from './stream-hub';
import type { ChatRef } from './tools/registry';
import { appendTurnEvents, type TurnEvent } from './turn-events';

/*
 * A turn's life on the engine (inngest/functions/chat-turn.ts): begin (queued → running), then
 * model and tool steps (the agent loop, chat-host.ts), then finish: the reply saved as the
 * chat's assistant message with the `message` event, or an `error` event. Every step is one
 * transaction under the turn row's lock and does nothing when the turn has already moved past it,
 * so a replayed or retried step never writes twice.
 */

export type TurnChat = ChatRef & { effort: string | null };

const chatColumns = { id: chats.id, accountId: chats.accountId, userId: chats.userId, assistantId: chats.assistantId, effort: chats.effort };

export async function turnWithChat(db: Tx, turnId: string): Promise<{ turn: ChatTurnRow; chat: TurnChat } | null> {
  const [row] = await db.select({ turn: chatTurns, chat: chatColumns }).from(chatTurns).innerJoin(chats, eq(chats.id, chatTurns.chatId)).where(eq(chatTurns.id, turnId));
  return row ?? null;
}

/** The turn, locked for the rest of the transaction, and its chat. */
export async function lockedTurn(tx: Tx, turnId: string): Promise<{ turn: ChatTurnRow; chat: TurnChat } | null> {
  const [turn] = await tx.select().from(chatTurns).where(eq(chatTurns.id, turnId)).for('update');
  if (!turn) return null;
  const [chat] = await tx.select(chatColumns).from(chats).where(eq(chats.id, turn.chatId));
  return chat ? { turn, chat } : null;
}

async function committed<T>(db: Db, turnId: string, work: (tx: Tx) => Promise<{ result: T; events: TurnEvent[] }>): Promise<T> {
  const { result, events } = await db.transaction(work);
  publishTurnEvents(turnId, events);
  return result;
}

/** What one turn may do (spec 5, Limits: a turn is a run of the assistant), fixed when it begins, as a task run's are. */
export type TurnLimits = { maxModelCalls: number; maxToolCalls: number };

export type TurnStart = { go: true; limits: TurnLimits } | { go: false; reason: string };

/** The first step: queued → running with `status_update {state: "running"}`; a turn already running (this step replayed) goes on. */
export function beginTurn(db: Db, turnId: string, now = new Date()): Promise<TurnStart> {
  return committed<TurnStart>(db, turnId, async (tx) => {
    const locked = await lockedTurn(tx, turnId);
    if (!locked) return { result: { go: false, reason: 'the turn or its chat no longer exists' }, events: [] };
    const { turn } = locked;
    if (turn.status !== 'running' && turn.status !== 'queued') return { result: { go: false, reason: `the turn is ${turn.status}` }, events: [] };
    const found = await limitsFor(tx, turn.accountId);
    const limits = { maxModelCalls: found.runMaxModelCalls, maxToolCalls: found.runMaxToolCalls };
    if (turn.status === 'running') return { result: { go: true, limits }, events: [] };
    await tx.update(chatTurns).set({ status: 'running', startedAt: now }).where(eq(chatTurns.id, turnId));
    const events = await appendTurnEvents(tx, turnId, [{ kind: 'status_update', data: { state: 'running' } }]);
    return { result: { go: true, limits }, events };
  });
}

/** How a turn ends: with the model's reply, or with an error the client reads as `{code, message}`. */
export type TurnEnd = { kind: 'answered'; text: string } | { kind: 'error'; code: string; message: string };

/** The tasks this turn opened (create_task), in the order it opened them. */
async function openedTasks(tx: Tx, turnId: string): Promise<string[]> {
  const rows = await tx
    .select({ taskId: chatToolCalls.taskId })
    .from(chatToolCalls)
    .where(and(eq(chatToolCalls.turnId, turnId), isNotNull(chatToolCalls.taskId)))
    .orderBy(asc(chatToolCalls.step), asc(chatToolCalls.position));
  return rows.map((r) => r.taskId!);
}

/**
 * The last step: the reply becomes the chat's assistant message and the final `message` event
 * `{message, taskIds}`, or the turn fails with the final `error` event `{code, message}`. A turn
 * that has already ended is left as it is (a replay, or the failure handler after the end).
 */
export function finishTurn(db: Db, turnId: string, end: TurnEnd, now = new Date()): Promise<{ ended: boolean }> {
  return committed<{ ended: boolean }>(db, turnId, async (tx) => {
    const locked = await lockedTurn(tx, turnId);
    if (!locked || (locked.turn.status !== 'running' && locked.turn.status !== 'queued')) return { result: { ended: false }, events: [] };
    const { turn, chat } = locked;
    if (end.kind === 'error') {
      await tx
        .update(chatTurns)
        .set({ status: 'failed', error: { code: end.code, message: end.message }, endedAt: now })
        .where(eq(chatTurns.id, turnId));
      const events = await appendTurnEvents(tx, turnId, [{ kind: 'error', data: { code: end.code, message: end.message } }]);
      return { result: { ended: true }, events };
    }
    const taskIds = await openedTasks(tx, turnId);
    const reply = await appendChatMessage(tx, chat, { role: 'assistant', content: end.text, turnId: turn.id, metadata: { executionId: turn.id, ...(taskIds.length ? { taskIds } : {}) } });
    await tx.update(chatTurns).set({ status: 'completed', taskIds, replyMessageId: reply.id, endedAt: now }).where(eq(chatTurns.id, turnId));
    const events = await appendTurnEvents(tx, turnId, [{ kind: 'message', data: { message: presentChatMessage(reply), taskIds } }]);
    return { result: { ended: true }, events };
  });
}
