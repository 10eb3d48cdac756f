import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chatTurns } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { findChatForActor } from './access';

/**
 * The chat's newest turn that has not ended (queued or running), or null: after a reload the
 * hosted chat page resumes its stream (GET .../runs/{executionId}/events) even when the browser
 * kept nothing of the first one.
 */
export async function openTurn(db: Db, actor: Actor, chatId: string) {
  const chat = await findChatForActor(db, actor, chatId);
  const [turn] = await db
    .select({ id: chatTurns.id, status: chatTurns.status, lastSeq: chatTurns.lastSeq, createdAt: chatTurns.createdAt })
    .from(chatTurns)
    .where(and(eq(chatTurns.chatId, chat.id), inArray(chatTurns.status, ['queued', 'running'])))
    .orderBy(desc(chatTurns.createdAt), desc(chatTurns.id))
    .limit(1);
  return turn ? { executionId: turn.id, status: turn.status, lastEventId: turn.lastSeq, startedAt: turn.createdAt.toISOString() } : null;
}
