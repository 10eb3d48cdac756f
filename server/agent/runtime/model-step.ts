import type { Db } from '@/db/client';
import { creditsFor } from '@/server/agent/models/prices';
import { recordModelCall } from '@/server/tasks/usage';
import { modelTurn, type ModelTurn } from './model-turn';
import type { ToolRegistry } from './tools/registry';

/**
 * One durable model step of a run: the model call, then its usage row (tokens as the provider
 * reported them, credits priced by the tier that served it). Both happen inside the same engine
 * step, so a finished step is replayed from its stored result and records nothing again; a step
 * retried after a crash between the call and the row calls the model again and records once,
 * because recordModelCall is idempotent per (run, seq). `seq` counts the run's model steps from 0.
 */
export async function modelStep(db: Db, runId: string, seq: number, tools: ToolRegistry, now = new Date()): Promise<ModelTurn> {
  const turn = await modelTurn(db, runId, tools, now);
  if (turn.kind !== 'answer') return turn;
  const priced = creditsFor(turn.servedBy, turn.usage, { billable: turn.billable });
  await db.transaction((tx) =>
    recordModelCall(tx, { runId, seq, modelTier: turn.tier, model: turn.modelId, usage: turn.usage, chargedCredits: priced.chargedCredits, isBillable: priced.isBillable }),
  );
  return turn;
}
