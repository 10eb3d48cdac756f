import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { sweepCalls } from '@/server/messaging/voice-sweep';
import { inngest } from '../client';

/**
 * Every five minutes: calls whose final status callback never came are asked about at Twilio and
 * closed (server/messaging/voice-sweep.ts). Overlapping runs are safe: a call is closed under its
 * row's lock, once.
 */
export const voiceSweep = inngest.createFunction({ id: 'voice-sweep', retries: 1, triggers: [cron('*/5 * * * *')] }, async ({ step }) =>
  step.run('sweep', () => sweepCalls(sharedDatabase().db)),
);
