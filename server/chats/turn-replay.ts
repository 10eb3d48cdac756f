import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { chatTurnEvents, chatTurns } from '@/db/schema';
import type { AnyEndpoint } from '@/server/http/endpoint';
import type { StreamSummary } from '@/server/http/idempotency';

/*
 * What a retry of POST /chats/{chatId}/process with the same
 * Idempotency-Key gets (spec 5: streams replay nothing). While the turn the first call started is
 * queued or running: 409 idempotency_key_in_use (the kernel's answer to null). Once it ended: this
 * JSON summary of it, the final event's payload included, so a client that lost the stream learns
 * the outcome without starting a second turn.
 */
export const chatTurnSummary: StreamSummary = async (db: Db, turnId: string) => {
  const [turn] = await db.select().from(chatTurns).where(eq(chatTurns.id, turnId));
  if (!turn) return { status: 404, body: { ok: false, status: 404, error_code: 'not_found', error: 'The turn this key started no longer exists' } };
  if (turn.status === 'queued' || turn.status === 'running') return null;
  const [last] = await db
    .select({ kind: chatTurnEvents.kind, data: chatTurnEvents.data })
    .from(chatTurnEvents)
    .where(and(eq(chatTurnEvents.turnId, turn.id), inArray(chatTurnEvents.kind, ['message', 'error'])))
    .orderBy(desc(chatTurnEvents.seq))
    .limit(1);
  const final = last?.data as { message?: unknown; taskIds?: unknown; code?: unknown } | undefined;
  return {
    status: 200,
    body: {
      ok: true,
      executionId: turn.id,
      chatId: turn.chatId,
      status: turn.status,
      message: last?.kind === 'message' ? (final?.message ?? null) : null,
      taskIds: turn.taskIds,
      error: turn.error ?? null,
    },
  };
};

/** The chat process endpoint with its summary: the one streamed answer an Idempotency-Key keeps. */
export function withTurnSummaries(list: AnyEndpoint[]): AnyEndpoint[] {
  return list.map((ep) => (ep.method === 'POST' && ep.path === '/chats/{chatId}/process' ? { ...ep, streamSummary: chatTurnSummary } : ep));
}
