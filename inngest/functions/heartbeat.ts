import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { recordHeartbeat } from '@/server/executor/heartbeat';
import { inngest } from '../client';
import { events } from '../events';

/** Proves the durable path end to end: every 10 minutes, or on demand, a step records a beat. */
export const heartbeat = inngest.createFunction(
  { id: 'heartbeat', retries: 2, triggers: [events.heartbeatRequested, cron('*/10 * * * *')] },
  async ({ step }) => {
    const beat = await step.run('record-beat', () => recordHeartbeat(sharedDatabase().db, new Date()));
    return { beatAt: beat.at };
  },
);
