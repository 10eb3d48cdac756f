import { registerTurnDispatcher } from '@/server/chats/turn-dispatch';
import { logger } from '@/server/logger';
import { registerNoticeHandover } from '@/server/notices/create';
import { registerTaskTimer } from '@/server/tasks/timers';
import { engine } from './engine';

/**
 * Work the areas record in a transaction and the engine does later, each sent as its event:
 * - a notice goes to notice-requested, which waits for that transaction to commit before it sends
 *   (inngest/functions/notice-deliver.ts); a lost handover is not a lost notice: the sweep sends
 *   notices that are due and still pending;
 * - a task's alarm or scheduled time goes to task-timer-set, which waits for the commit and sleeps
 *   until the time (inngest/functions/task-timer.ts); the minute sweep wakes what was lost;
 * - a recorded chat turn starts by chat-turn-requested (inngest/functions/chat-turn.ts); the
 *   process call sends it once the turn's transaction has committed.
 */
export function wireEngineWakeups(): void {
  registerNoticeHandover((notice) => {
    void engine()
      .then(({ inngest, events }) => inngest.send(events.noticeRequested.create(notice, { id: `notice-${notice.noticeId}` })))
      .catch((err: unknown) => logger.warn({ err, noticeId: notice.noticeId }, 'notice: handover failed; the sweep will send it'));
  });

  registerTaskTimer((timer) => {
    void engine()
      .then(({ inngest, events }) => inngest.send(events.taskTimerSet.create(timer, { id: `task-timer-${timer.taskId}-${timer.at}` })))
      .catch((err: unknown) => logger.warn({ err, taskId: timer.taskId }, 'task timer: handover failed; the minute sweep will wake it'));
  });

  registerTurnDispatcher(async (turn) => {
    const { inngest, events } = await engine();
    await inngest.send(events.chatTurnRequested.create(turn));
  });
}
