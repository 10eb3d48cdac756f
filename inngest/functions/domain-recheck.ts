import { sharedDatabase } from '@/db/client';
import { recheckUnverifiedDomains } from '@/server/organizations/domains';
import { inngest } from '../client';

/** Every hour, unverified domains (for 72 hours after they were added) are looked up again. */
export const domainRecheck = inngest.createFunction(
  { id: 'domain-recheck', retries: 1, triggers: [{ cron: '0 * * * *' }, { event: 'steward/domains.recheck' }] } as never,
  async ({ step }: { step: { run: <T>(id: string, fn: () => Promise<T>) => Promise<T> } }) =>
    step.run('recheck', () => recheckUnverifiedDomains(sharedDatabase().db, new Date())),
);
