import { sharedDatabase } from '@/db/client';
import { inngest } from './client';

/**
 * `npm run soak`'s function, served only when STEWARD_SOAK=1 (never in production): ten steps, each
 * of which writes one row keyed by (run, step) into soak_effects, a table the soak creates. The row
 * notes whether the step's result was already recorded when the step ran: a step may run again when
 * the process dies between its effect and its checkpoint (nothing can record both at once), but it
 * must never run again once its result is stored.
 */
export const soakFunction = inngest.createFunction(
  { id: 'soak', retries: 5, triggers: [{ event: 'steward/soak.go' }] },
  async ({ step, runId, event }) => {
    const workMs = Number((event.data as { workMs?: number }).workMs ?? 0);
    for (let i = 0; i < 10; i++) {
      await step.run(`s${i}`, async () => {
        if (workMs > 0) await new Promise((r) => setTimeout(r, Math.random() * 2 * workMs));
        await sharedDatabase().pool.query(
          `INSERT INTO soak_effects (run_id, step, recorded_before)
           VALUES ($1, $2, EXISTS (SELECT 1 FROM executor_step_log WHERE run_id = $1 AND name = $2 AND op = 'StepRun'))`,
          [runId, `s${i}`],
        );
        return i;
      });
    }
    return 'done';
  },
);
