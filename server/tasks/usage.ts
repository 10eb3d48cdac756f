import { countModelUsage } from '@/server/http/metrics';
import { asc, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { taskModelCalls, taskRuns, type TaskModelCallRow, type TaskRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { readableTask } from './access';

/*
 * Usage of a task (spec document 2: GET /tasks/{taskId}/usage): one row per model step of each
 * run, the token totals, and the credits per run. The runtime records each step through
 * recordModelCall; this module only stores and sums what it is given, so pricing stays in
 * server/agent/models/prices.ts (creditsFor).
 */

/** The provider's four disjoint token counts of one call (the shape of the agent's StewardUsage). */
export type TokenCounts = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheCreationTokens: number };

export type ModelCall = {
  runId: string;
  /** The step's position in its run, from 0; the same (runId, seq) twice records once. */
  seq: number;
  modelTier: TaskRow['modelTier'];
  model: string | null;
  usage: TokenCounts;
  /** From creditsFor: 0 and false when the call is not billable. */
  chargedCredits: number;
  isBillable: boolean;
};

/**
 * The runtime's entry point after each model step. Task and account come from the run row, so a
 * call can never be filed under another task. A durable step that is retried after it already
 * recorded its call is a no-op (null): the unique (run_id, seq) index holds that. A run deleted
 * meanwhile (with its task or owner) records nothing (null) instead of failing the step.
 */
export async function recordModelCall(tx: Tx, call: ModelCall): Promise<TaskModelCallRow | null> {
  return (await recordModelCallWith(tx, call, null)).row;
}

/**
 * recordModelCall, with `also` evaluated by the same statement once the row is written (the
 * model step settles the call's credits with it, server/budgets/reserve.ts settlementSql): its
 * value, or null when no row was written (then `also` was not evaluated).
 */
export async function recordModelCallWith<T>(tx: Tx, call: ModelCall, also: SQL<T> | null): Promise<{ row: TaskModelCallRow | null; also: T | null }> {
  const [run] = await tx.select({ taskId: taskRuns.taskId, accountId: taskRuns.accountId }).from(taskRuns).where(eq(taskRuns.id, call.runId));
  // The run went with its task (deleted, or its owner was): there is nothing left to bill it to.
  if (!run) return { row: null, also: null };
  const insert = tx
    .insert(taskModelCalls)
    .values({
      taskId: run.taskId,
      runId: call.runId,
      accountId: run.accountId,
      seq: call.seq,
      modelTier: call.modelTier,
      model: call.model,
      ...call.usage,
      chargedCredits: call.chargedCredits,
      isBillable: call.isBillable,
    })
    .onConflictDoNothing({ target: [taskModelCalls.runId, taskModelCalls.seq] });
  let row: TaskModelCallRow | undefined;
  let value: T | null = null;
  if (also) {
    const [r] = await insert.returning({ ...getTableColumns(taskModelCalls), also });
    if (r) {
      const { also: v, ...rest } = r;
      row = rest;
      value = v;
    }
  } else {
    [row] = await insert.returning();
  }
  // Counted once: a retried step that finds its row already there records nothing new.
  if (row) countModelUsage(call.modelTier, call.usage);
  return { row: row ?? null, also: value };
}

/** Credits to six decimals, as creditsFor rounds them: sums of binary fractions would drift otherwise. */
const credits = (n: number) => Math.round(n * 1e6) / 1e6;

/** Read like the task itself: the owner, or an account-wide key. */
export async function getTaskUsage(db: Db, actor: Actor, id: string) {
  const { task } = await readableTask(db, actor, id);
  const rows = await db
    .select({ call: taskModelCalls })
    .from(taskModelCalls)
    .innerJoin(taskRuns, eq(taskRuns.id, taskModelCalls.runId))
    .where(eq(taskModelCalls.taskId, task.id))
    .orderBy(asc(taskRuns.createdAt), asc(taskRuns.id), asc(taskModelCalls.seq));
  // Every run, also those without a model call yet (0 credits), oldest first.
  const runs = await db
    .select({
      runId: taskRuns.id,
      createdAt: taskRuns.createdAt,
      chargedCredits: sql<number>`coalesce(sum(${taskModelCalls.chargedCredits}), 0)`.mapWith(Number),
      isBillable: sql<boolean>`coalesce(bool_or(${taskModelCalls.isBillable}), false)`,
    })
    .from(taskRuns)
    .leftJoin(taskModelCalls, eq(taskModelCalls.runId, taskRuns.id))
    .where(eq(taskRuns.taskId, task.id))
    .groupBy(taskRuns.id)
    .orderBy(asc(taskRuns.createdAt), asc(taskRuns.id));

  const total = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
  for (const { call } of rows) {
    total.inputTokens += call.inputTokens;
    total.outputTokens += call.outputTokens;
    total.cacheReadTokens += call.cacheReadTokens;
    total.cacheCreationTokens += call.cacheCreationTokens;
  }
  return {
    ok: true as const,
    total,
    rows: rows.map(({ call }) => ({
      runId: call.runId,
      seq: call.seq,
      modelTier: call.modelTier,
      model: call.model,
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      cacheReadTokens: call.cacheReadTokens,
      cacheCreationTokens: call.cacheCreationTokens,
      chargedCredits: credits(call.chargedCredits),
      isBillable: call.isBillable,
      createdAt: call.createdAt.toISOString(),
    })),
    credits: {
      total: credits(runs.reduce((sum, r) => sum + r.chargedCredits, 0)),
      runs: runs.map((r) => ({ runId: r.runId, chargedCredits: credits(r.chargedCredits), isBillable: r.isBillable, createdAt: r.createdAt.toISOString() })),
    },
  };
}
