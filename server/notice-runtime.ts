import { logger } from '@/server/logger';
import { registerNoticeHandover } from '@/server/notices/create';

/*
 * Composition (entry floor): a notice recorded in a transaction (server/notices) goes to
 * the engine as the notice-requested event, which waits for that transaction to commit before it
 * sends (inngest/functions/notice-deliver.ts). A lost handover is not a lost notice: the sweep
 * sends notices that are due and still pending. Imported by server/task-hooks.ts, which every
 * process that serves the API loads.
 */
const engine = () => Promise.all([import('@/inngest/client'), import('@/inngest/events')]).then(([c, e]) => ({ inngest: c.inngest, events: e.events }));

registerNoticeHandover((notice) => {
  void engine()
    .then(({ inngest, events }) => inngest.send(events.noticeRequested.create(notice, { id: `notice-${notice.noticeId}` })))
    .catch((err: unknown) => logger.warn({ err, noticeId: notice.noticeId }, 'notice: handover failed; the sweep will send it'));
});
