import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { newId } from '@/db/schema/columns';
import type { Op } from './protocol';

type Json = Record<string, unknown>;

/** What the SDK posts to /v1/checkpoint/<run>/async after running a step within a call. */
export type Checkpoint = { runId: string; owner: string; steps: Op[] };

type Entry = { runId: string; owner: string; steps: Record<string, Json>; ids: string[]; logs: Json[]; done: Array<(stored: boolean) => void>; failed: Array<(e: unknown) => void> };

/** The memo entry a checkpointed op stands for; null for ops that are not step results. */
function resultOf(op: Op): Json | null {
  if (op.op === 'StepRun') return { type: 'data', data: op.data ?? null };
  if (op.op === 'StepFailed') return { type: 'error', error: (op.error ?? op.data ?? {}) as Json };
  return null;
}

/**
 * Stores the steps the SDK checkpoints, in group commits: while one statement is on its way,
 * the checkpoints that arrive wait and go together in the next, so under load many runs' steps
 * cost one round trip. A checkpoint is stored only while the worker that made the call (`owner`,
 * sent to the SDK as the queue item id) still holds the run's lease; otherwise it is refused (409),
 * and the SDK stops that call: the run has been taken over or cancelled.
 */
export function createCheckpointWriter(db: Db) {
  let pending = new Map<string, Entry>();
  let flushing = false;

  async function flush() {
    flushing = true;
    while (pending.size) {
      const batch = [...pending.values()];
      pending = new Map();
      try {
        const stored = new Set(await write(db, batch));
        for (const e of batch) for (const d of e.done) d(stored.has(e.runId));
      } catch (err) {
        for (const e of batch) for (const f of e.failed) f(err);
      }
    }
    flushing = false;
  }

  return {
    /** True when the steps are stored; false when the caller no longer holds the run. */
    record(cp: Checkpoint): Promise<boolean> {
      const results = cp.steps.map((op) => [op, resultOf(op)] as const).filter((x): x is readonly [Op, Json] => x[1] !== null);
      return new Promise<boolean>((resolve, reject) => {
        // One entry per run and owner per statement (a repeated checkpoint joins the one waiting).
        const key = `${cp.runId}\u0000${cp.owner}`;
        let e = pending.get(key);
        if (!e) pending.set(key, (e = { runId: cp.runId, owner: cp.owner, steps: {}, ids: [], logs: [], done: [], failed: [] }));
        for (const [op, result] of results) {
          if (!(op.id in e.steps)) e.ids.push(op.id);
          e.steps[op.id] ??= result;
          e.logs.push({ id: newId(), step_id: op.id, name: op.displayName ?? op.name ?? null, op: op.op, data: (op.error ?? op.data ?? null) as Json });
        }
        e.done.push(resolve);
        e.failed.push(reject);
        if (!flushing) void flush();
      });
    },
  };
}

/**
 * One statement for a batch: each run's memo gets the new results (a stored result wins), its
 * stack the ids it did not have, and the log the executions that were new. Returns the runs stored.
 */
async function write(db: Db, batch: Entry[]): Promise<string[]> {
  const rows = batch.map((e) => ({ run_id: e.runId, owner: e.owner, steps: e.steps, ids: e.ids, logs: e.logs }));
  const res = await db.execute<{ id: string }>(sql`
    WITH b AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS b(run_id text, owner text, steps jsonb, ids jsonb, logs jsonb)
    ), u AS (
      UPDATE executor_runs r SET
        steps = b.steps || r.steps,
        stack = r.stack || coalesce((SELECT jsonb_agg(i ORDER BY n) FROM jsonb_array_elements_text(b.ids) WITH ORDINALITY AS x(i, n) WHERE NOT r.steps ? i), '[]'::jsonb),
        attempt = 0,
        updated_at = now()
      FROM b JOIN executor_runs o ON o.id = b.run_id
      WHERE r.id = b.run_id AND r.status = 'running' AND r.lease_owner = b.owner
      RETURNING r.id, b.logs, (SELECT coalesce(jsonb_agg(i), '[]'::jsonb) FROM jsonb_array_elements_text(b.ids) AS i WHERE NOT o.steps ? i) AS fresh
    ), l AS (
      INSERT INTO executor_step_log (id, run_id, step_id, name, op, attempt, data, created_at)
      SELECT x.id, u.id, x.step_id, x.name, x.op, 0, x.data, clock_timestamp()
      FROM u, jsonb_to_recordset(u.logs) AS x(id text, step_id text, name text, op text, data jsonb)
      WHERE u.fresh ? x.step_id
    )
    SELECT id FROM u`);
  return res.rows.map((r) => r.id);
}
