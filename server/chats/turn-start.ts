import { and, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { chatMessages, type ChatTurnRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { invalidFields } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { findChatForActor } from './access';
import { readableChatFiles } from './files';
import { appendChatMessage } from './messages';
import { publishTurnEvents } from './stream-hub';
import type { ProcessChatBody } from './turn-contracts';
import { turnDispatcher } from './turn-dispatch';
import type { TurnEvent } from './turn-events';
import { handOverTurn, queueChatTurn } from './turn-queue';
import { finishTurn } from './turn-run';

type Body = z.infer<typeof ProcessChatBody>;

/** The message the turn answers: the one this call brings, the saved one it names, or the chat's newest. */
async function answeredMessage(tx: Tx, actor: UserActor, chat: Awaited<ReturnType<typeof findChatForActor>>, body: Body): Promise<string> {
  const message = body.message && typeof body.message === 'object' ? body.message : null;
  if (message && body.triggeringActivityId) {
    throw invalidFields([{ field: 'triggeringActivityId', problem: 'give either message or triggeringActivityId, not both' }]);
  }
  if (message) {
    const { files, ...rest } = message;
    const saved = await appendChatMessage(tx, chat, { ...rest, role: 'user', files: await readableChatFiles(tx, actor, files) });
    return saved.id;
  }
  if (body.triggeringActivityId) {
    const [named] = await tx
      .select({ id: chatMessages.id })
      .from(chatMessages)
      .where(and(eq(chatMessages.id, body.triggeringActivityId), eq(chatMessages.chatId, chat.id)));
    if (!named) throw invalidFields([{ field: 'triggeringActivityId', problem: 'names no message of this chat' }]);
    return named.id;
  }
  const [newest] = await tx.select({ id: chatMessages.id }).from(chatMessages).where(eq(chatMessages.chatId, chat.id)).orderBy(desc(chatMessages.createdAt), desc(chatMessages.id)).limit(1);
  if (!newest) throw invalidFields([{ field: 'message', problem: 'is required (an object with content) when the chat has no message to answer' }]);
  return newest.id;
}

/**
 * POST /chats/{chatId}/process, before streaming: the message saved and the turn queued
 * (turn-queue.ts: the turn, its first event and its outbox row) in one transaction; then the turn
 * is handed to the engine. Its events are the stream's content.
 */
export async function startChatTurn(db: Db, actor: UserActor, chatId: string, body: Body): Promise<{ turn: ChatTurnRow; first: TurnEvent }> {
  const { turn, first } = await db.transaction(async (tx) => {
    const chat = await findChatForActor(tx as Db, actor, chatId);
    const messageId = await answeredMessage(tx, actor, chat, body);
    // The message this call brought is the turn's question.
    return queueChatTurn(tx, chat, messageId, Boolean(body.message && typeof body.message === 'object'));
  });
  publishTurnEvents(turn.id, [first]);
  const dispatch = turnDispatcher();
  if (dispatch) {
    // Not awaited: the stream opens at once. A send the engine refused ends the turn with an error
    // event (the person is waiting on the stream: "send it again" beats a silent wait); the sweep
    // then finds the turn no longer queued and settles its row. Only a handover lost with its
    // process (no one left to say anything) is sent by the sweep.
    handOverTurn(db, turn, dispatch).catch(async (err: unknown) => {
      logger.error({ err, turnId: turn.id }, 'chat turn could not be started');
      await finishTurn(db, turn.id, { kind: 'error', code: 'turn_not_started', message: 'The turn could not be handed to the engine; send the message again.' }).catch(() => {});
    });
  }
  return { turn, first };
}
