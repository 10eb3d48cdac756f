import { RetryAfterError } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { recordIntent, recordOutcome, sendDispatch } from '@/server/approvals/delivery';
import { abandonExecution, beginExecution, finishExecution } from '@/server/approvals/execution';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/**
 * Executes a released cart (spec document 4, Carts and dispatch): begin (the cart executing, its
 * emails and messages held for their undo window), sleep through that window, then per dispatch
 * three steps whose ids carry its index (its key is the cart, the version released and the
 * index): record the intent (the Message-ID), send, record the outcome (server/approvals/
 * delivery.ts explains why a retried step never sends twice). Then finish: the cart executed,
 * failed or cancelled (all undone), and the task woken with it. A cart runs one execution at a
 * time; a run that keeps failing leaves nothing half-said (onFailure: abandonExecution).
 */
export const cartExecute = inngest.createFunction(
  {
    id: 'cart-execute',
    retries: 5,
    concurrency: { key: 'event.data.cartId', limit: 1 },
    triggers: [events.cartExecuteRequested],
    onFailure: async ({ event, error }) => {
      const cartId = (event.data.event.data as { cartId?: string }).cartId;
      if (cartId) await abandonExecution(db(), cartId, error.message);
    },
  },
  async ({ event, step }) => {
    const { cartId, transactionId } = event.data;
    const plan = await step.run('begin', () => beginExecution(db(), cartId, transactionId));
    if (!plan.go) return plan;
    // Until the window ends, POST .../dispatches/{index}/undo can still stop a held dispatch.
    if (plan.holdUntil) await step.sleepUntil('undo-window', plan.holdUntil);
    for (const job of plan.jobs) {
      const intent = await step.run(`intent-${job.index}`, async () => {
        const r = await recordIntent(db(), job);
        // Woken before the window ended (another engine's clock): look again when it does.
        if (!r.go && 'heldUntil' in r) throw new RetryAfterError('the dispatch is still in its undo window', new Date(r.heldUntil));
        return r;
      });
      if (!intent.go) continue;
      const sent = await step.run(`send-${job.index}`, () => sendDispatch(db(), job));
      await step.run(`record-${job.index}`, () => recordOutcome(db(), job, sent));
    }
    return step.run('finish', () => finishExecution(db(), cartId));
  },
);
