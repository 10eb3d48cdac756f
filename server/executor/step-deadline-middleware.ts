import { Middleware } from 'inngest';
import { logger } from '@/server/logger';
import { StepDeadlineExceeded, checkDeadlineTable, stepDeadlineMs, type StepDeadlineTable } from './step-deadlines';

/**
 * The Inngest SDK middleware that holds each step to its deadline (step-deadlines.ts): a step
 * handler still running at its deadline fails its attempt with StepDeadlineExceeded, so the SDK
 * answers the call (a step error: retried with backoff, or failed once the retries are spent)
 * instead of waiting on it. The handler's promise cannot be stopped from here: it runs on, and
 * what it yields later is dropped (its call has answered). A step that must not be repeated blindly
 * keeps its own guard (a send claims its dispatch before sending: server/approvals/delivery.ts).
 * Works alike with the built-in executor and with an Inngest server.
 */
export function stepDeadlineMiddleware(table: StepDeadlineTable) {
  checkDeadlineTable(table);
  return class StepDeadlines extends Middleware.BaseMiddleware {
    readonly id = 'steward-step-deadlines';

    override async wrapStepHandler({ next, fn, stepInfo }: Middleware.WrapStepHandlerArgs): Promise<unknown> {
      const stepId = stepInfo.options.id;
      const ms = stepDeadlineMs(table, fn.id(), stepId);
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          logger.warn({ function: fn.id(), step: stepId, deadlineMs: ms }, 'durable work: a step ran past its deadline; its attempt fails');
          reject(new StepDeadlineExceeded(`step ${stepId} of ${fn.id()}`, ms));
        }, ms);
      });
      try {
        return await Promise.race([next(), expired]);
      } finally {
        clearTimeout(timer);
      }
    }
  };
}
