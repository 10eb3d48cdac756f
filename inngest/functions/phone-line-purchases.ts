import { cron, eventType } from 'inngest';
import { z } from 'zod';
import { sharedDatabase } from '@/db/client';
import { retryDuePurchases } from '@/server/channels/phone-lines';
import { inngest } from '../client';

const db = () => sharedDatabase().db;

/** The event of the purchase retries (server/channels/phone-line-purchase.ts), beside its function. */
export const phoneLinePurchaseEvents = {
  /** Try again the number purchases that are due (the cron does it every 5 minutes). */
  phoneLinePurchasesDue: eventType('steward/phone-lines.purchases-due', { schema: z.object({}).loose() }),
};

/** Every 5 minutes: pending phone-line requests whose failed Twilio purchase is due again are tried again (claimed per request). */
export const phoneLinePurchases = inngest.createFunction(
  { id: 'phone-line-purchases', retries: 1, triggers: [cron('*/5 * * * *'), phoneLinePurchaseEvents.phoneLinePurchasesDue] },
  async ({ step }) => step.run('retry', () => retryDuePurchases(db(), new Date())),
);
