import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { recheckUnverifiedDomains } from '@/server/organizations/domains';
import { inngest } from '../client';
import { events } from '../events';

/** Every hour, unverified domains (for 72 hours after they were added) are looked up again. */
export const domainRecheck = inngest.createFunction(
  { id: 'domain-recheck', retries: 1, triggers: [cron('0 * * * *'), events.domainsRecheckRequested] },
  async ({ step }) => step.run('recheck', () => recheckUnverifiedDomains(sharedDatabase().db, new Date())),
);
