import { sharedDatabase } from '@/db/client';
import { transactionOutcome } from '@/db/queries/transaction-outcome';
import { notifyPendingApproval } from '@/server/approvals/notify';
import { postPendingApprovals } from '@/server/messaging/channel-approvals';
import { offerApprovalByText } from '@/server/messaging/text-approvals';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/**
 * A cart waits for its owner's approval: once the transaction that submitted it has committed,
 * the owner gets the approval email (server/approvals/notify.ts: one per cart, a link to
 * /approvals and a one-time Reject link). An SMTP refusal is retried with backoff. A user who
 * chose approvals by text also gets the request texted with its code (messaging/text-approvals.ts),
 * in its own step so a mail retry never texts twice; an owner with a linked Slack or Teams
 * identity gets the approval card at once (the channels' sweep posts what this misses, and every
 * later version).
 */
export const cartNotify = inngest.createFunction({ id: 'cart-notify', retries: 4, triggers: [events.cartPendingApproval] }, async ({ event, step }) => {
  const { cartId, transactionId } = event.data;
  const submitted = await step.run('submitted', async () => {
    const outcome = await transactionOutcome(db(), transactionId);
    if (outcome === 'unknown') throw new Error(`the transaction that submitted cart ${cartId} has not ended yet`);
    return outcome;
  });
  if (submitted === 'aborted') return { sent: false, reason: 'the submission was rolled back' };
  const text = await step.run('text', () => offerApprovalByText(db(), cartId));
  await step.run('cards', () => postPendingApprovals(db()));
  const mail = await step.run('notify', async () => {
    const r = await notifyPendingApproval(db(), cartId);
    if (!r.sent && r.reason === 'mail_failed') throw new Error('the SMTP server refused the approval email');
    return r;
  });
  return { ...mail, text };
});
