import { and, eq, isNull } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { chatMessages, chatTurns, engineHandoffs, type ChatRow, type ChatTurnRow } from '@/db/schema';
import { logger } from '@/server/logger';
import { publishTurnEvents } from './stream-hub';
import { turnDispatcher } from './turn-dispatch';
import { appendTurnEvents, type TurnEvent } from './turn-events';
import { turnEventData } from './turn-start';

/*
 * A turn for a message that arrived on a channel (the owner's email to their assistant): recorded
 * `queued` with its first event in the caller's transaction (the one that stored the message),
 * then handed to the engine once that transaction has committed, as POST /chats/{id}/process
 * does for a turn a client opened. Nobody streams it: its reply goes back on the channel
 * (server/messaging/replies.ts). Its outbox row (engine_handoffs) is written in that same
 * transaction and stamped once the engine took the event; a handover that failed or was lost with
 * its process is sent by the sweep (inngest/functions/engine-handoff-sweep.ts): nobody waits on a
 * stream to be told to send the message again.
 */

export type QueuedChatTurn = { turn: ChatTurnRow; first: TurnEvent };

export async function queueChatTurn(tx: Tx, chat: Pick<ChatRow, 'id' | 'accountId' | 'userId' | 'modelTier'>, messageId: string): Promise<QueuedChatTurn> {
  const [turn] = await tx.insert(chatTurns).values({ chatId: chat.id, accountId: chat.accountId, userId: chat.userId, messageId, modelTier: chat.modelTier }).returning();
  await tx.update(chatMessages).set({ turnId: turn.id }).where(eq(chatMessages.id, messageId));
  const [first] = await appendTurnEvents(tx, turn.id, [{ kind: 'status_update', data: { state: 'queued', executionId: turn.id, chatId: chat.id, messageId } }]);
  await tx.insert(engineHandoffs).values({ id: turn.id, kind: 'chat_turn', accountId: turn.accountId, data: turnEventData(turn) });
  return { turn, first };
}

/** After the commit: the turns' first events go to live listeners and the turns to the engine. */
export async function startQueuedTurns(db: Db, queued: readonly QueuedChatTurn[]): Promise<void> {
  const dispatch = turnDispatcher();
  for (const { turn, first } of queued) {
    publishTurnEvents(turn.id, [first]);
    if (!dispatch) continue;
    await dispatch(turnEventData(turn))
      .then(() => db.update(engineHandoffs).set({ sentAt: new Date() }).where(and(eq(engineHandoffs.id, turn.id), isNull(engineHandoffs.sentAt))))
      .catch((err: unknown) => logger.error({ err, turnId: turn.id }, 'chat turn for a channel message could not be handed to the engine; the handoff sweep sends it'));
  }
}
