import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { expireDueHandoffs } from '@/server/workspace/handoffs/expiry';
import { inngest } from '../client';
import { events } from '../events';

/**
 * Every minute (or when steward/handoffs.expiry-due is sent), open handoffs whose expiresAt has
 * come expire: control returns to the assistant and a waiting task wakes with the outcome
 * (server/workspace/handoffs/expiry.ts). Overlapping passes skip rows another one holds.
 */
export const handoffExpiry = inngest.createFunction(
  { id: 'handoff-expiry', retries: 1, triggers: [cron('* * * * *'), events.handoffsExpiryDue] },
  async ({ step }) => step.run('expire', () => expireDueHandoffs(sharedDatabase().db, new Date())),
);
