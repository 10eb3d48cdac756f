/*
 * The routing that follows a webhook's answer (a stored Slack event, Teams activity or port
 * update), a few at a time per process, whatever the channel: a burst of inbound messages then
 * holds few database connections and little CPU, so the acknowledgements of the burst (Slack
 * wants one within 3 seconds, Telegram and the Bot Connector retry slow ones) are not kept waiting
 * behind the work they announce. A job queued here when the process dies is lost with it; its
 * stored row stays `received` and the channel sweep (channel-work.ts) routes it.
 */

import { logger } from '@/server/logger';

const AT_ONCE = 4;
const waiting: Array<() => Promise<void>> = [];
let running = 0;

/** Runs `job` after the current answer, once fewer than four such jobs run in this process. */
export function routeAfterAnswer(job: () => Promise<void>): void {
  waiting.push(job);
  drain();
}

function drain(): void {
  while (running < AT_ONCE && waiting.length) {
    const next = waiting.shift()!;
    running++;
    setImmediate(() =>
      void next()
        // Each job logs its own failure; one that throws anyway is logged here and frees its place.
        .catch((err: unknown) => logger.error({ err }, 'routing after a webhook answer failed; its stored row stays received for the sweep'))
        .finally(() => {
          running--;
          drain();
        }),
    );
  }
}
