import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { transactionOutcome } from '@/db/queries/transaction-outcome';
import { deliverNotice, dueNotices } from '@/server/notices/deliver';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/**
 * A notice of what needs the user (server/notices): once the transaction that recorded
 * it has committed, it is sent on its channel; a notice held by quiet hours sleeps until the
 * user's working hours begin. A send the provider refused is retried with backoff.
 */
export const noticeDeliver = inngest.createFunction({ id: 'notice-deliver', retries: 4, triggers: [events.noticeRequested] }, async ({ event, step }) => {
  const { noticeId, transactionId } = event.data;
  const recorded = await step.run('recorded', async () => {
    const outcome = await transactionOutcome(db(), transactionId);
    if (outcome === 'unknown') throw new Error(`the transaction that recorded notice ${noticeId} has not ended yet`);
    return outcome;
  });
  if (recorded === 'aborted') return { sent: false, reason: 'the event it reports was rolled back' };
  const first = await step.run('send', () => deliverNotice(db(), noticeId));
  if (first.sent || first.reason !== 'not_due' || !first.dueAt) return first;
  await step.sleepUntil('quiet-hours', first.dueAt);
  return step.run('send-due', () => deliverNotice(db(), noticeId));
});

/** Every minute: notices due whose handover was lost are sent (each at most once: deliverNotice claims it). */
export const noticeSweep = inngest.createFunction({ id: 'notice-sweep', retries: 1, triggers: [cron('* * * * *')] }, async ({ step }) =>
  step.run('sweep', async () => {
    const due = await dueNotices(db(), new Date(Date.now() - 60_000));
    let sent = 0;
    for (const id of due) if ((await deliverNotice(db(), id)).sent) sent++;
    return { due: due.length, sent };
  }),
);
