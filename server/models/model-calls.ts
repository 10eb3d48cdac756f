import { eq, type SQL } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { chatModelCalls, chatTurns, taskModelCalls, taskRuns } from '@/db/schema';
import { countModelUsage } from '@/server/http/metrics';
import type { ModelTier } from './tiers';

/*
 * The one writer of model-call usage rows: one row per model call of a task run
 * (task_model_calls) or of a chat turn (chat_model_calls), the tokens as the provider reported
 * them and the credits creditsFor priced (prices.ts). The agent loop's model
 * step (server/agent/runtime/model-step.ts) calls it for both hosts; the tasks' and chats' usage
 * endpoints only read what it wrote (server/tasks/usage.ts, server/chats/usage.ts).
 */

/** The provider's four disjoint token counts of one call (the shape of the agent's StewardUsage). */
export type TokenCounts = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheCreationTokens: number };

/** Whose call it was: a task run's or a chat turn's (its account, task or chat are read from that row). */
export type CallOwner = { runId: string } | { turnId: string };

export type ModelCallUsage = {
  /** The call's place in its run or turn, from 0; the same (owner, seq) twice records once. */
  seq: number;
  modelTier: ModelTier;
  model: string | null;
  usage: TokenCounts;
  /** From creditsFor: 0 and false when the call is not billable. */
  chargedCredits: number;
  isBillable: boolean;
};

/**
 * Records one model call, with `also` evaluated by the same statement once the row is written
 * (a model step near its budgets' limits settles the call's credits with it, server/budgets/reserve.ts settlementSql):
 * its id and `also`'s value, or nulls when no row was written (then `also` was not evaluated).
 * Idempotent per (owner, seq): a durable step retried after it recorded its call writes nothing.
 * The task or chat and the account come from the run or turn row, so a call can never be filed
 * under another's; a run or turn deleted meanwhile records nothing instead of failing the step.
 */
export async function recordCallUsage<T>(tx: Tx, owner: CallOwner, call: ModelCallUsage, also: SQL<T> | null): Promise<{ id: string | null; also: T | null }> {
  const values = { seq: call.seq, modelTier: call.modelTier, model: call.model, ...call.usage, chargedCredits: call.chargedCredits, isBillable: call.isBillable };
  let written: { id: string; also?: T }[];
  if ('runId' in owner) {
    const [run] = await tx.select({ taskId: taskRuns.taskId, accountId: taskRuns.accountId }).from(taskRuns).where(eq(taskRuns.id, owner.runId));
    if (!run) return { id: null, also: null };
    const insert = tx
      .insert(taskModelCalls)
      .values({ ...values, taskId: run.taskId, runId: owner.runId, accountId: run.accountId })
      .onConflictDoNothing({ target: [taskModelCalls.runId, taskModelCalls.seq] });
    written = also ? await insert.returning({ id: taskModelCalls.id, also }) : await insert.returning({ id: taskModelCalls.id });
  } else {
    const [turn] = await tx.select({ chatId: chatTurns.chatId, accountId: chatTurns.accountId }).from(chatTurns).where(eq(chatTurns.id, owner.turnId));
    if (!turn) return { id: null, also: null };
    const insert = tx
      .insert(chatModelCalls)
      .values({ ...values, chatId: turn.chatId, turnId: owner.turnId, accountId: turn.accountId })
      .onConflictDoNothing({ target: [chatModelCalls.turnId, chatModelCalls.seq] });
    written = also ? await insert.returning({ id: chatModelCalls.id, also }) : await insert.returning({ id: chatModelCalls.id });
  }
  const [row] = written;
  if (!row) return { id: null, also: null };
  // Counted once: a retried step that finds its row already there records nothing new.
  countModelUsage(call.modelTier, call.usage);
  return { id: row.id, also: row.also ?? null };
}
