import { cron, RetryAfterError } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { transactionOutcome } from '@/db/queries/transaction-outcome';
import { expireDueTimeBoxes, expireTimeBox } from '@/server/approvals/timebox';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/**
 * The timer of one time-boxed cart: once the transaction that made it time-boxed has committed,
 * it sleeps until the window ends, then executes or cancels the cart as its timeBoxedExpiry says
 * (server/approvals/timebox.ts). The person's approve or cancel stops it (cancelOn); should the
 * stop signal be lost, the expiry finds the cart moved under its lock and does nothing.
 */
export const cartTimeBox = inngest.createFunction(
  {
    id: 'cart-timebox',
    retries: 5,
    triggers: [events.cartTimeBoxStarted],
    cancelOn: [{ event: events.cartDecided, if: 'async.data.cartId == event.data.cartId' }],
  },
  async ({ event, step }) => {
    const { cartId, expiresAt, transactionId } = event.data;
    const released = await step.run('released', async () => {
      const outcome = await transactionOutcome(db(), transactionId);
      if (outcome === 'unknown') throw new Error(`the transaction that time-boxed cart ${cartId} has not ended yet`);
      return outcome;
    });
    if (released === 'aborted') return { outcome: 'none', reason: 'the time box was rolled back' };
    await step.sleepUntil('window', expiresAt);
    return step.run('expire', async () => {
      const r = await expireTimeBox(db(), cartId);
      // The window was moved later meanwhile (or the clocks differ): wait for its end.
      if (r.outcome === 'not_due') throw new RetryAfterError('the review window has not ended', new Date(r.expiresAt));
      return r;
    });
  },
);

/**
 * Every minute (or on steward/carts.time-boxes-due): every time box that has ended and has no
 * timer left ends, and a release whose execution never started is started again. The timers do
 * this on time; the sweep is the safety net under them.
 */
export const cartSweep = inngest.createFunction(
  { id: 'cart-sweep', retries: 1, triggers: [cron('* * * * *'), events.cartsTimeBoxesDue] },
  async ({ step }) => step.run('sweep', () => expireDueTimeBoxes(db(), new Date())),
);
