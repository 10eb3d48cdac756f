import { cron } from 'inngest';
import { sharedDatabase } from '@/db/client';
import { embedQueuedMemories } from '@/server/memories/embed-queue';
import { embeddingsSettings } from '@/server/memories/embeddings';
import { inngest } from '../client';
import { events } from '../events';

/** Batches one invocation computes at most before leaving the rest to the next minute. */
const MAX_BATCHES = 20;

/**
 * Every minute (or when asked): the vectors of memories written or changed since (server/memories/
 * embed-queue.ts), a batch per step, so a crash repeats one batch at most and a reader never waits
 * for a model. Without STEWARD_EMBEDDINGS_MODEL it does nothing and the queue waits. One at a time:
 * overlapping runs would only compute the same batch twice.
 */
export const memoryEmbeddings = inngest.createFunction(
  { id: 'memory-embeddings', retries: 1, concurrency: { limit: 1 }, triggers: [cron('* * * * *'), events.memoriesEmbedDue] },
  async ({ step }) => {
    if (!embeddingsSettings()) return { embedded: 0, configured: false };
    let embedded = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const batch = await step.run(`batch-${i}`, () => embedQueuedMemories(sharedDatabase().db));
      embedded += batch.embedded;
      if (!batch.left || batch.error) return { embedded, configured: true, ...(batch.error ? { error: batch.error } : {}) };
    }
    return { embedded, configured: true };
  },
);
