import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { cartDispatches, carts, taskRuns, type TaskRunRow, type VoiceCallRow } from '@/db/schema';
import type { RunHome } from '@/server/chats/live-voice-usage';

/*
 * Where a placed call's realtime model usage is kept (issue 48). The call has no chat: it is the
 * task's, placed by the run that staged its place_call (the dispatch's cart's run). Each of the
 * model's responses is a model call of that run (task_model_calls, through the one usage writer,
 * server/models/model-calls.ts), so GET /tasks/{taskId}/usage, the run's credits, the console
 * and budgets see it as they see the run's own model calls.
 *
 * Numbering: a run's own model calls are numbered 0, 1, … (at most MAX_TOOL_STEPS and a final
 * answer), and that run has ended before the call is dialled (its cart is submitted when it ends:
 * approvals/run-cart.ts), so it numbers nothing more. Each dispatch of its cart has a range of its
 * own above them: response n of dispatch i is (i + 1) × CALL_SEQ_STRIDE + n − 1. The number is
 * the response's, as the budgets' reservation `call:<callId>:<n>` is: counted again (a writer that
 * starts over for the call), it finds its row and its settled reservation, and nothing is written
 * or charged twice.
 */

/** Responses of one placed call a run keeps rows of; far above a run's own model calls. */
export const CALL_SEQ_STRIDE = 100_000;
const MAX_SEQ = 2_147_483_647;

/** The run's numbers for dispatch `index`'s responses (null past its range: charged, with no row). */
export function callSeq(index: number): (n: number) => number | null {
  const base = (index + 1) * CALL_SEQ_STRIDE;
  return (n) => (n >= 1 && n <= CALL_SEQ_STRIDE && base + n - 1 <= MAX_SEQ ? base + n - 1 : null);
}

/**
 * The run that placed the call, as the call's usage home, and the run's tier (a task's usage is
 * priced at its run's tier); null when the call has no dispatch or its cart's run is gone.
 */
export async function placedCallRun(db: Db, call: Pick<VoiceCallRow, 'accountId' | 'dispatchId' | 'taskId'>): Promise<{ run: RunHome; modelTier: TaskRunRow['modelTier'] } | null> {
  if (!call.dispatchId || !call.taskId) return null;
  const [found] = await db
    .select({ runId: carts.runId, index: cartDispatches.index, modelTier: taskRuns.modelTier })
    .from(cartDispatches)
    .innerJoin(carts, eq(carts.id, cartDispatches.cartId))
    .innerJoin(taskRuns, eq(taskRuns.id, carts.runId))
    .where(and(eq(cartDispatches.id, call.dispatchId), eq(carts.accountId, call.accountId), eq(carts.taskId, call.taskId)));
  if (!found) return null;
  return { run: { runId: found.runId, seq: callSeq(found.index) }, modelTier: found.modelTier };
}
