import { sql, type SQL } from 'drizzle-orm';
import { executorRuns } from '@/db/schema';

type Json = Record<string, unknown>;

/**
 * The SET values that add step results to a run's memo. A result already stored wins over a new
 * one for the same step (a step's recorded result never changes, even when the SDK repeats a
 * checkpoint), and the completion stack gets only ids that were not stored before. Both read the
 * row as it was before the update, so the order of SET clauses does not matter.
 */
export function appendSteps(steps: Record<string, Json>, ids: string[]): { steps: SQL; stack: SQL } {
  if (!ids.length && !Object.keys(steps).length) return { steps: sql`${executorRuns.steps}`, stack: sql`${executorRuns.stack}` };
  return {
    steps: sql`${JSON.stringify(steps)}::jsonb || ${executorRuns.steps}`,
    stack: sql`${executorRuns.stack} || coalesce((SELECT jsonb_agg(i ORDER BY n) FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) WITH ORDINALITY AS x(i, n) WHERE NOT ${executorRuns.steps} ? i), '[]'::jsonb)`,
  };
}
