import { asc, eq, sql } from 'drizzle-orm';
import { callUsage } from '@/db/queries/call-minutes';
import type { Db, Tx } from '@/db/client';
import { taskModelCalls, taskRuns, type TaskModelCallRow } from '@/db/schema';
import { recordCallUsage, type ModelCallUsage } from '@/server/models/model-calls';
import type { Actor } from '@/server/access/actor';
import { readableTask } from './access';

/*
 * Usage of a task (spec document 2: GET /tasks/{taskId}/usage): one row per model step of each
 * run, the token totals, and the credits per run. The agent loop records each step through the
 * one usage writer (server/models/model-calls.ts, shared with chat turns); this module sums
 * what it wrote, so pricing stays in server/models/prices.ts (creditsFor).
 */

/** One model step of a run, as the model step records it (server/models/model-calls.ts writes it). */
export type ModelCall = ModelCallUsage & { runId: string };

/**
 * A run's model step, recorded (the agent loop writes through recordCallUsage itself; this is its
 * task-shaped form): the row, or null when none was written (a retried step's row is there
 * already, or the run went with its task or owner).
 */
export async function recordModelCall(tx: Tx, call: ModelCall): Promise<TaskModelCallRow | null> {
  const { runId, ...usage } = call;
  const { id } = await recordCallUsage(tx, { runId }, usage, null);
  if (!id) return null;
  const [row] = await tx.select().from(taskModelCalls).where(eq(taskModelCalls.id, id));
  return row ?? null;
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
    calls: await callUsage(db, { taskId: task.id }),
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
