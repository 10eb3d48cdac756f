import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { sweepExpiredKeys } from '@/server/http/idempotency';
import { inngest } from '../client';

/** Every minute: Idempotency-Keys past their 24 hours are dropped (server/http/idempotency.ts). A later request may use the key again. */
export const idempotencySweep = inngest.createFunction({ id: 'idempotency-sweep', retries: 1, triggers: [cron('* * * * *')] }, async ({ step }) =>
  step.run('sweep', async () => ({ removed: await sweepExpiredKeys(sharedDatabase().pool) })),
);
