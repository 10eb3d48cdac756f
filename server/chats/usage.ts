import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { callUsage } from '@/db/queries/call-minutes';
import { chatModelCalls, chatTurns } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { findChatForActor } from './access';

/*
 * Usage of a chat (spec document 2: GET /chats/{chatId}/usage). The agent loop records one row per
 * model call of a turn (server/models/model-calls.ts, the writer task runs use too); the
 * answer sums them per turn: a turn is a run of the assistant (its executionId is the row's
 * runId), and `turns` counts its model calls.
 */

const credits = (n: number) => Math.round(n * 1e6) / 1e6;
const num = (column: unknown) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number);

/** Read like the chat itself (404 for another user's chat). */
export async function getChatUsage(db: Db, actor: Actor, chatId: string) {
  const chat = await findChatForActor(db, actor, chatId);
  const perTurn = await db
    .select({
      runId: chatTurns.id,
      createdAt: chatTurns.createdAt,
      startedAt: chatTurns.startedAt,
      modelTier: chatTurns.modelTier,
      model: sql<string | null>`max(${chatModelCalls.model})`,
      inputTokens: num(chatModelCalls.inputTokens),
      outputTokens: num(chatModelCalls.outputTokens),
      cacheReadTokens: num(chatModelCalls.cacheReadTokens),
      cacheCreationTokens: num(chatModelCalls.cacheCreationTokens),
      chargedCredits: num(chatModelCalls.chargedCredits),
      isBillable: sql<boolean>`coalesce(bool_or(${chatModelCalls.isBillable}), false)`,
      turns: sql<number>`count(${chatModelCalls.id})`.mapWith(Number),
    })
    .from(chatTurns)
    .leftJoin(chatModelCalls, eq(chatModelCalls.turnId, chatTurns.id))
    .where(eq(chatTurns.chatId, chat.id))
    .groupBy(chatTurns.id)
    .orderBy(asc(chatTurns.createdAt), asc(chatTurns.id));

  const total = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, totalTokens: 0, runs: perTurn.length, turns: 0 };
  const rows = perTurn.map((r, seq) => {
    const totalTokens = r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheCreationTokens;
    total.inputTokens += r.inputTokens;
    total.outputTokens += r.outputTokens;
    total.cacheReadTokens += r.cacheReadTokens;
    total.cacheCreationTokens += r.cacheCreationTokens;
    total.totalTokens += totalTokens;
    total.turns += r.turns;
    return {
      runId: r.runId,
      seq,
      modelTier: r.modelTier,
      model: r.model,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      cacheReadTokens: r.cacheReadTokens,
      cacheCreationTokens: r.cacheCreationTokens,
      totalTokens,
      chargedCredits: credits(r.chargedCredits),
      isBillable: r.isBillable,
      turns: r.turns,
      startedAt: (r.startedAt ?? r.createdAt).toISOString(),
    };
  });
  return {
    ok: true as const,
    calls: await callUsage(db, { chatId: chat.id }),
    total,
    rows,
    credits: {
      total: credits(perTurn.reduce((s, r) => s + r.chargedCredits, 0)),
      runs: perTurn.map((r) => ({ runId: r.runId, chargedCredits: credits(r.chargedCredits), isBillable: r.isBillable, createdAt: r.createdAt.toISOString() })),
    },
  };
}
