import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { taskRuns } from '@/db/schema';
import { creditsFor } from '@/server/agent/models/prices';
import { releaseCall, reservationOf, reservationSql, settleCall, settledAlerts, settlementSql, type Reservation, type ReserveResult, type SpentBudget } from '@/server/budgets/reserve';
import { recordModelCall, recordModelCallWith } from '@/server/tasks/usage';
import { benchSwitches } from './bench-switches';
import { modelTurn, type ModelTurn } from './model-turn';
import type { ToolRegistry } from './tools/registry';

/**
 * A model step's result: the model call's, or why no call was made because of credits: every
 * budget of the owner is `busy` (calls in flight may spend what is left; the run asks again
 * shortly) or one is spent (`credits_exhausted`: the run ends, the task waits in credits_blocked).
 */
export type ModelStep = ModelTurn | { kind: 'credits_busy' } | { kind: 'credits_exhausted'; budget: SpentBudget };

/**
 * One durable model step of a run: the call's estimated cost reserved against every budget that
 * covers the task's owner (server/budgets/reserve.ts), the model call, then its usage row
 * (tokens as the provider reported them, credits priced by the tier that served it) and the
 * reservation settled with those credits, in one transaction. A call that was not made or failed
 * releases what it reserved. All of it happens inside the same engine step, so a finished step is
 * replayed from its stored result and records nothing again; a step retried after a crash
 * between the call and the row reserves nothing new (the reservation is named by run and seq),
 * calls the model again and records once, because recordModelCall is idempotent per (run, seq).
 * `seq` counts the run's model steps from 0.
 */
export async function modelStep(db: Db, runId: string, seq: number, tools: ToolRegistry, now = new Date()): Promise<ModelStep> {
  const ref = `run:${runId}:${seq}`;
  const columns = { accountId: taskRuns.accountId, userId: taskRuns.userId, modelTier: taskRuns.modelTier, status: taskRuns.status };
  // The reservation is made by the statement that reads the run (one round trip for both). A run
  // stopped meanwhile reserves nothing (modelTurn answers `stopped`), so it never waits for credits it will not use.
  const reserving = benchSwitches.trustChecks
    ? sql<ReserveResult | null>`CASE WHEN ${taskRuns.status} = 'running' AND ${taskRuns.userId} IS NOT NULL THEN ${reservationSql({ ref, accountId: taskRuns.accountId, userId: taskRuns.userId, tier: taskRuns.modelTier }, now)} END`
    : null;
  let reservation: Reservation = { kind: 'none' };
  if (reserving) {
    const [run] = await db.select({ ...columns, reserved: reserving }).from(taskRuns).where(eq(taskRuns.id, runId));
    if (run?.reserved) reservation = reservationOf(run.reserved, ref);
  } else {
    // Bypassed (bench/trust.ts only): the same read of the run, without the reservation.
    await db.select(columns).from(taskRuns).where(eq(taskRuns.id, runId));
  }
  if (reservation.kind === 'busy') return { kind: 'credits_busy' };
  if (reservation.kind === 'exhausted') return { kind: 'credits_exhausted', budget: reservation.budget };
  const held = reservation.kind === 'reserved';
  let turn: ModelTurn;
  try {
    turn = await modelTurn(db, runId, tools, now);
  } catch (e) {
    if (held) await db.transaction((tx) => releaseCall(tx, ref));
    throw e;
  }
  if (turn.kind !== 'answer') {
    if (held) await db.transaction((tx) => releaseCall(tx, ref));
    return turn;
  }
  const answer = turn;
  const priced = creditsFor(answer.servedBy, answer.usage, { billable: answer.billable });
  const call = { runId, seq, modelTier: answer.tier, model: answer.modelId, usage: answer.usage, chargedCredits: priced.chargedCredits, isBillable: priced.isBillable };
  await db.transaction(async (tx) => {
    if (!held) {
      await recordModelCall(tx, call);
      return;
    }
    // The settlement is made by the statement that writes the usage row (one round trip for both);
    // when no row was written (a retried step's row is there already, or the run is gone) it is made on its own.
    const { also: settled } = await recordModelCallWith(tx, call, settlementSql(ref, answer.tier, priced.chargedCredits));
    if (settled) await settledAlerts(tx, settled);
    else await settleCall(tx, ref, answer.tier, priced.chargedCredits);
  });
  return answer;
}
