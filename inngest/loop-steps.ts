import type { GetStepTools } from 'inngest';
import type { LoopSteps } from '@/server/agent/runtime/loop';
import type { inngest } from './client';

/**
 * Inngest's step tools as the agent loop uses them (server/agent/runtime/loop.ts). A step's stored
 * result comes back as JSON; the loop's step results (model calls, tool steps, ends) are plain
 * JSON already, so what a replay returns is what the step returned.
 */
export function loopSteps(step: GetStepTools<typeof inngest>): LoopSteps {
  return {
    run: <T>(id: string, fn: () => Promise<T>) => step.run(id, fn) as Promise<T>,
    sleep: async (id, duration) => {
      await step.sleep(id, duration);
    },
  };
}
