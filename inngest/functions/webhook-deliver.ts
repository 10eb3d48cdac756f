import { sharedDatabase } from '@/db/client';
import { attemptDelivery, markStarted } from '@/server/webhooks/deliver';
import { unstartedDeliveries } from '@/server/webhooks/sweep';
import { inngest } from '../client';
import { events } from '../events';

const db = () => sharedDatabase().db;

/**
 * One webhook delivery (server/webhooks): each attempt is a step and each wait a durable sleep, so
 * a restart neither repeats a recorded attempt nor forgets the schedule. At most one run per
 * delivery (the event id and the concurrency key); the delivery's row says when it is settled.
 */
export const webhookDeliver = inngest.createFunction(
  { id: 'webhook-deliver', retries: 2, concurrency: { key: 'event.data.deliveryId', limit: 1 }, triggers: [events.webhookDeliveryRequested] },
  async ({ event, step }) => {
    const { deliveryId } = event.data;
    await step.run('start', async () => {
      await markStarted(db(), deliveryId);
    });
    for (let n = 1; ; n++) {
      const result = await step.run(`attempt-${n}`, () => attemptDelivery(db(), deliveryId));
      if (result.done) return { deliveryId, status: result.status, attempts: n };
      await step.sleep(`backoff-${n}`, result.retryInMs);
    }
  },
);

/** Every minute: deliveries whose handover was lost are handed over again. */
export const webhookSweep = inngest.createFunction(
  { id: 'webhook-sweep', triggers: [{ cron: '* * * * *' }, events.webhooksSweepDue] },
  async ({ step }) => {
    const ids = await step.run('find', () => unstartedDeliveries(db()));
    if (ids.length) await step.sendEvent('hand-over', ids.map((deliveryId) => events.webhookDeliveryRequested.create({ deliveryId }, { id: `webhook-${deliveryId}` })));
    return { handedOver: ids.length };
  },
);
