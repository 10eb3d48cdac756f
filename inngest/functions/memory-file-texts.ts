import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { indexFileTexts } from '@/server/files/recall';
import { inngest } from '../client';
import { events } from '../events';

/**
 * Every minute (or when asked): the text of users' new files, extracted once for recall to match
 * against what a run is about (server/files/recall.ts). Off the request path: an upload is
 * confirmed at once, and its text joins recall within a minute.
 */
export const memoryFileTexts = inngest.createFunction(
  { id: 'memory-file-texts', retries: 1, concurrency: { limit: 1 }, triggers: [cron('* * * * *'), events.fileTextsDue] },
  async ({ step }) => step.run('extract', () => indexFileTexts(sharedDatabase().db)),
);
