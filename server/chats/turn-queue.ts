import { eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { stampHandoffs } from '@/db/queries/engine-handoffs';
import { chatMessages, chatTurns, engineHandoffs, type ChatRow, type ChatTurnRow } from '@/db/schema';
import { logger } from '@/server/logger';
import { publishTurnEvents } from './stream-hub';
import { turnDispatcher } from './turn-dispatch';
import { appendTurnEvents, type TurnEvent } from './turn-events';

/*
 * A turn recorded `queued`, in the caller's transaction (the one that stored its message): the
 * turn, its first event (`status_update {state: "queued", executionId, chatId, messageId}`) and its
 * outbox row (engine_handoffs), which is stamped once the engine took the event. POST
 * /chats/{id}/process queues a turn a client then streams (turn-start.ts); a message that arrived
 * on a channel (the owner's email to their assistant) queues one nobody streams, whose reply goes
 * back on the channel (server/messaging/replies.ts). A handover that failed or was lost with its
 * process is sent by the sweep (inngest/functions/engine-handoff-sweep.ts).
 */

export type QueuedChatTurn = { turn: ChatTurnRow; first: TurnEvent };

/** The engine event's data for a turn (steward/chat.turn-requested): the same from the process call, a channel message and the sweep. */
export const turnEventData = (turn: Pick<ChatTurnRow, 'id' | 'chatId' | 'accountId'>) => ({ turnId: turn.id, chatId: turn.chatId, accountId: turn.accountId });

/** Records the turn answering `messageId`; `asksMessage`: the message is this turn's question (it came with the turn). */
export async function queueChatTurn(tx: Tx, chat: Pick<ChatRow, 'id' | 'accountId' | 'userId' | 'modelTier'>, messageId: string, asksMessage = true): Promise<QueuedChatTurn> {
  const [turn] = await tx.insert(chatTurns).values({ chatId: chat.id, accountId: chat.accountId, userId: chat.userId, messageId, modelTier: chat.modelTier }).returning();
  if (asksMessage) await tx.update(chatMessages).set({ turnId: turn.id }).where(eq(chatMessages.id, messageId));
  const [first] = await appendTurnEvents(tx, turn.id, [{ kind: 'status_update', data: { state: 'queued', executionId: turn.id, chatId: chat.id, messageId } }]);
  await tx.insert(engineHandoffs).values({ id: turn.id, kind: 'chat_turn', accountId: turn.accountId, data: turnEventData(turn) });
  return { turn, first };
}

/** Hands a committed turn to the engine and stamps its outbox row; rejects when the engine refused it (the row stays for the sweep). */
export async function handOverTurn(db: Db, turn: ChatTurnRow, dispatch: NonNullable<ReturnType<typeof turnDispatcher>>): Promise<void> {
  await dispatch(turnEventData(turn));
  await stampHandoffs(db, [turn.id]);
}

/** After the commit: channel turns' first events go to live listeners and the turns to the engine. */
export async function startQueuedTurns(db: Db, queued: readonly QueuedChatTurn[]): Promise<void> {
  const dispatch = turnDispatcher();
  for (const { turn, first } of queued) {
    publishTurnEvents(turn.id, [first]);
    if (!dispatch) continue;
    await handOverTurn(db, turn, dispatch).catch((err: unknown) =>
      logger.error({ err, turnId: turn.id }, 'chat turn for a channel message could not be handed to the engine; the handoff sweep sends it'),
    );
  }
}
