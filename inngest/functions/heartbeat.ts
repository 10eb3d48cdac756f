import { sharedDatabase } from '@/db/client';
import { recordHeartbeat } from '@/server/executor/heartbeat';
import { inngest } from '../client';

/** Proves the durable path end to end: every 10 minutes, or on demand, a step records a beat. */
export const heartbeat = inngest.createFunction(
  { id: 'heartbeat', retries: 2, triggers: [{ event: 'steward/heartbeat' }, { cron: '*/10 * * * *' }] } as never,
  async ({ step }: { step: { run: <T>(id: string, fn: () => Promise<T>) => Promise<T> } }) => {
    const beat = await step.run('record-beat', () => recordHeartbeat(sharedDatabase().db, new Date()));
    return { beatAt: beat.at };
  },
);
