import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { chatTurns } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { defineEndpoint } from '@/server/http/endpoint';
import { invalidFields, notFound } from '@/server/http/errors';
import { eventStream } from '@/server/http/event-stream';
import { findChatForActor } from './access';
import { sseEvent, tailTurn } from './stream-tail';
import { ChatParams, ChatUsageResponse, ProcessChatBody, TurnEventsQuery, TurnParams } from './turn-contracts';
import { startChatTurn } from './turn-start';
import { getChatUsage } from './usage';

const tags = ['Chats'];
const Stream = z.unknown().describe('text/event-stream: `id: <n>`, `event: <kind>`, `data: <json>` (docs/chat-streaming.md)');

/** The turn of this chat, for a caller who may read the chat (404 otherwise, for both). */
async function chatTurn(db: Db, actor: Actor, chatId: string, turnId: string) {
  const chat = await findChatForActor(db, actor, chatId);
  const [turn] = await db.select({ id: chatTurns.id }).from(chatTurns).where(and(eq(chatTurns.id, turnId), eq(chatTurns.chatId, chat.id)));
  if (!turn) throw notFound('Run');
  return turn;
}

/** Last-Event-ID as a number: the query's `lastEventId` wins over the header. */
function resumeAfter(query: number | undefined, header: string | null): number {
  if (query !== undefined) return query;
  if (header === null || header.trim() === '') return 0;
  const n = Number(header.trim());
  if (!Number.isInteger(n) || n < 0) throw invalidFields([{ field: 'Last-Event-ID', problem: 'must be an event id (a whole number)' }]);
  return n;
}

export const chatTurnEndpoints = [
  defineEndpoint({
    tags,
    auth: 'user',
    method: 'POST',
    path: '/chats/{chatId}/process',
    summary: 'Save the user’s message and stream the assistant’s turn (text/event-stream; HTTP 200 even when an error event is sent)',
    killSwitch: true,
    raw: true,
    params: ChatParams,
    body: ProcessChatBody,
    response: Stream,
    errors: [400, 404],
    handle: async ({ db, actor, params, body, signal }) => {
      const { turn, first } = await startChatTurn(db, actor, params.chatId, body);
      return eventStream(signal, async (send) => {
        await send(sseEvent(first));
        await tailTurn(db, turn.id, first.seq, send, signal);
      });
    },
  }),
  defineEndpoint({
    tags,
    auth: 'any',
    method: 'GET',
    path: '/chats/{chatId}/runs/{executionId}/events',
    summary: 'Resume a turn’s stream: the events after Last-Event-ID (header, or lastEventId), then the live rest, until the final event',
    raw: true,
    params: TurnParams,
    query: TurnEventsQuery,
    response: Stream,
    errors: [400, 404],
    handle: async ({ db, actor, params, query, req, signal }) => {
      const after = resumeAfter(query.lastEventId, req.headers.get('last-event-id'));
      const turn = await chatTurn(db, actor, params.chatId, params.executionId);
      return eventStream(signal, async (send) => {
        // A first byte at once, even with nothing to replay yet: the client knows it is connected.
        await send({ comment: `events of ${turn.id} after ${after}` });
        await tailTurn(db, turn.id, after, send, signal);
      });
    },
  }),
  defineEndpoint({
    tags,
    auth: 'any',
    method: 'GET',
    path: '/chats/{chatId}/usage',
    summary: 'Tokens and credits of the chat’s turns: totals, one row per turn (run) with its model calls (turns), credits per run',
    params: ChatParams,
    response: ChatUsageResponse,
    errors: [404],
    handle: ({ db, actor, params }) => getChatUsage(db, actor, params.chatId),
  }),
];
