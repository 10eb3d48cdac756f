import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { sweepSamlState } from '@/server/sign-in/saml-store';
import { inngest } from '../client';

/** Every hour: drop expired SAML replay records and sign-in requests nobody finished. */
export const signInSweep = inngest.createFunction({ id: 'sign-in-sweep', retries: 1, triggers: [cron('30 * * * *')] }, async ({ step }) =>
  step.run('sweep', async () => {
    await sweepSamlState(sharedDatabase().db, new Date());
    return { swept: true };
  }),
);
