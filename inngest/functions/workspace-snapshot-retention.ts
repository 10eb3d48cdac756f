import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { pruneSnapshots } from '@/server/workspace/snapshots';
import { inngest } from '../client';

/**
 * Daily: drop workspace snapshots older than 30 days (spec document 2, Limits). A running
 * browser also prunes its own user's on each snapshot; this covers users whose browser no
 * longer runs.
 */
export const workspaceSnapshotRetention = inngest.createFunction(
  { id: 'workspace-snapshot-retention', retries: 2, triggers: [cron('17 3 * * *')] },
  async ({ step }) =>
    step.run('prune', async () => ({ deleted: await pruneSnapshots(sharedDatabase().db, new Date()) })),
);
