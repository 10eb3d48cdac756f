import { asc, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { chatModelCalls, chatTurns } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { countModelUsage } from '@/server/http/metrics';
import { findChatForActor } from './access';

/*
 * Usage of a chat (spec document 2: GET /chats/{chatId}/usage). The runtime records one row per
 * model call of a turn (recordChatModelCall); the answer sums them per turn: a turn is a run of
 * the assistant (its executionId is the row's runId), and `turns` counts its model calls.
 */

export type ChatModelCall = {
  turnId: string;
  /** The call's place in its turn, from 0; the same (turn, seq) twice records once. */
  seq: number;
  modelTier: (typeof chatModelCalls.$inferInsert)['modelTier'];
  model: string | null;
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheCreationTokens: number };
  chargedCredits: number;
  isBillable: boolean;
};

/** Idempotent per (turn, seq): a model step retried after it recorded its call records nothing new. */
export async function recordChatModelCall(tx: Tx, call: ChatModelCall): Promise<boolean> {
  const [turn] = await tx.select({ chatId: chatTurns.chatId, accountId: chatTurns.accountId }).from(chatTurns).where(eq(chatTurns.id, call.turnId));
  if (!turn) return false;
  const rows = await tx
    .insert(chatModelCalls)
    .values({
      chatId: turn.chatId,
      turnId: call.turnId,
      accountId: turn.accountId,
      seq: call.seq,
      modelTier: call.modelTier,
      model: call.model,
      ...call.usage,
      chargedCredits: call.chargedCredits,
      isBillable: call.isBillable,
    })
    .onConflictDoNothing({ target: [chatModelCalls.turnId, chatModelCalls.seq] })
    .returning({ id: chatModelCalls.id });
  if (rows.length) countModelUsage(call.modelTier, call.usage);
  return rows.length > 0;
}

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
    total,
    rows,
    credits: {
      total: credits(perTurn.reduce((s, r) => s + r.chargedCredits, 0)),
      runs: perTurn.map((r) => ({ runId: r.runId, chargedCredits: credits(r.chargedCredits), isBillable: r.isBillable, createdAt: r.createdAt.toISOString() })),
    },
  };
}
