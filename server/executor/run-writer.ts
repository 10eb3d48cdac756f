import type { Db } from '@/db/client';
import { newId } from '@/db/schema/columns';
import { claimCtes, claimedRow, claimValues, poolOf, type ClaimedRun, type ClaimRequest } from './claim';
import type { Op } from './protocol';

type Json = Record<string, unknown>;

/** What the SDK posts to /v1/checkpoint/<run>/async after running a step within a call. */
export type Checkpoint = { runId: string; owner: string; steps: Op[] };

/** A step execution for the log. */
export type LogEntry = { step_id: string; name: string | null; op: string; attempt: number; data: Json | null };

/**
 * A run's end, written by the worker that holds it: its last step results and log, and its
 * outcome. `next`: claim the worker's next run in the same statement.
 */
export type Finish = {
  runId: string;
  owner: string;
  steps: Record<string, Json>;
  ids: string[];
  logs: LogEntry[];
  attempt: number;
  status: 'completed' | 'failed';
  output: unknown;
  error: Json | null;
  finishedAt: Date;
  next?: Omit<ClaimRequest, 'limit'>;
};

type Fin = { status: string; output: unknown; error: Json | null; finished_at: string };

type Entry = {
  runId: string;
  owner: string;
  steps: Record<string, Json>;
  ids: string[];
  logs: Array<LogEntry & { id: string }>;
  attempt: number | null;
  fin: Fin | null;
  /** Claim one run for the writer of this entry (a run's end that asks for its worker's next). */
  claim?: Omit<ClaimRequest, 'limit'>;
  done: Array<(r: { stored: boolean; next: ClaimedRun[] }) => void>;
  failed: Array<(e: unknown) => void>;
};

/** The memo entry a checkpointed op stands for; null for ops that are not step results. */
function resultOf(op: Op): Json | null {
  if (op.op === 'StepRun') return { type: 'data', data: op.data ?? null };
  if (op.op === 'StepFailed') return { type: 'error', error: (op.error ?? op.data ?? {}) as Json };
  return null;
}

/**
 * Writes runs' progress in group commits: while one statement is on its way, the writes that
 * arrive wait and go together in the next, so under load many runs cost one round trip (a round
 * trip, and the wake-up of the database's process it costs, was the largest part of a step's CPU).
 * Two kinds of write share the statement: the steps the SDK checkpoints within a call (the
 * ingress's), and runs' ends (the executor's), which may claim the worker's next run in the same
 * statement. Each is stored only while the worker that made the call (`owner`, sent to the SDK as
 * the queue item id) still holds the run's lease; otherwise it is refused, and a refused
 * checkpoint (409) makes the SDK stop that call: the run has been taken over or cancelled.
 */
export function createRunWriter(db: Db) {
  let pending = new Map<string, Entry>();
  let flushing = false;
  /** Each run's end is an entry of its own. */
  let finishes = 0;

  async function flush() {
    flushing = true;
    while (pending.size) {
      // A run appears once per statement (one statement must not update a row twice); a second
      // write of the same run waits for the next statement.
      const batch: Entry[] = [];
      const runs = new Set<string>();
      const later = new Map<string, Entry>();
      for (const [key, e] of pending) {
        if (runs.has(e.runId)) later.set(key, e);
        else (runs.add(e.runId), batch.push(e));
      }
      pending = later;
      try {
        const { stored, claimed } = await write(db, batch);
        for (const e of batch) {
          const next = e.claim ? claimed.splice(0, 1) : [];
          for (const d of e.done) d({ stored: stored.has(e.runId), next });
        }
      } catch (err) {
        for (const e of batch) for (const f of e.failed) f(err);
      }
    }
    flushing = false;
  }

  function enqueue(key: string, init: () => Entry, add: (e: Entry) => void) {
    return new Promise<{ stored: boolean; next: ClaimedRun[] }>((resolve, reject) => {
      let e = pending.get(key);
      if (!e) pending.set(key, (e = init()));
      add(e);
      e.done.push(resolve);
      e.failed.push(reject);
      if (!flushing) void flush();
    });
  }

  const blank = (runId: string, owner: string): Entry => ({ runId, owner, steps: {}, ids: [], logs: [], attempt: null, fin: null, done: [], failed: [] });

  return {
    /** Stores checkpointed steps; true when stored, false when the caller no longer holds the run. */
    async checkpoint(cp: Checkpoint): Promise<boolean> {
      const results = cp.steps.map((op) => [op, resultOf(op)] as const).filter((x): x is readonly [Op, Json] => x[1] !== null);
      // One entry per run and owner per statement (a repeated checkpoint joins the one waiting);
      // a run's end is written apart, after its checkpoints.
      const r = await enqueue(`c\u0000${cp.runId}\u0000${cp.owner}`, () => blank(cp.runId, cp.owner), (e) => {
        for (const [op, result] of results) {
          if (!(op.id in e.steps)) e.ids.push(op.id);
          e.steps[op.id] ??= result;
          e.logs.push({ id: newId(), step_id: op.id, name: op.displayName ?? op.name ?? null, op: op.op, attempt: 0, data: (op.error ?? op.data ?? null) as Json });
        }
      });
      return r.stored;
    },

    /** Ends a run; `stored` false when the caller no longer held it. `next`: the run claimed for the caller, if it asked. */
    async finish(f: Finish): Promise<{ stored: boolean; next: ClaimedRun | null }> {
      const r = await enqueue(`f\u0000${finishes++}`, () => ({
        ...blank(f.runId, f.owner),
        steps: f.steps,
        ids: f.ids,
        logs: f.logs.map((l) => ({ ...l, id: newId() })),
        attempt: f.attempt,
        fin: { status: f.status, output: f.output ?? null, error: f.error, finished_at: f.finishedAt.toISOString() },
        claim: f.next,
      }), () => {});
      return { stored: r.stored, next: r.next[0] ?? null };
    },
  };
}

export type RunWriter = ReturnType<typeof createRunWriter>;

/**
 * The statement for a batch: each run's memo gets the new results (a stored result wins), its
 * stack the ids it did not have, the log the executions that were new, and an ending run its
 * outcome; then (`claiming`) the claims asked for, of runs this statement does not write. Two
 * prepared statements, with and without claims: parsed and planned once per connection.
 */
function writeStatement(claiming: boolean): string {
  return `
    WITH b AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS b(run_id text, owner text, steps jsonb, ids jsonb, logs jsonb, attempt int, fin jsonb)
    ), u AS (
      UPDATE executor_runs r SET
        steps = b.steps || r.steps,
        stack = r.stack || coalesce((SELECT jsonb_agg(i ORDER BY n) FROM jsonb_array_elements_text(b.ids) WITH ORDINALITY AS x(i, n) WHERE NOT r.steps ? i), '[]'::jsonb),
        attempt = coalesce(b.attempt, 0),
        status = coalesce(b.fin ->> 'status', r.status),
        output = CASE WHEN b.fin IS NULL THEN r.output ELSE nullif(b.fin -> 'output', 'null'::jsonb) END,
        error = CASE WHEN b.fin IS NULL THEN r.error ELSE nullif(b.fin -> 'error', 'null'::jsonb) END,
        finished_at = CASE WHEN b.fin IS NULL THEN r.finished_at ELSE (b.fin ->> 'finished_at')::timestamptz END,
        wait = CASE WHEN b.fin IS NULL THEN r.wait END,
        lease_owner = CASE WHEN b.fin IS NULL THEN r.lease_owner END,
        lease_until = CASE WHEN b.fin IS NULL THEN r.lease_until END,
        -- A checkpoint stored a step: the next one begins now.
        step_started_at = CASE WHEN b.fin IS NULL THEN now() ELSE r.step_started_at END,
        updated_at = now()
      FROM b JOIN executor_runs o ON o.id = b.run_id
      WHERE r.id = b.run_id AND r.status = 'running' AND r.lease_owner = b.owner
      RETURNING r.id, b.logs, (SELECT coalesce(jsonb_agg(i), '[]'::jsonb) FROM jsonb_array_elements_text(b.ids) AS i WHERE NOT o.steps ? i) AS fresh, b.fin IS NOT NULL AS ending
    ), l AS (
      INSERT INTO executor_step_log (id, run_id, step_id, name, op, attempt, data, created_at)
      SELECT x.id, u.id, x.step_id, x.name, x.op, x.attempt, x.data, clock_timestamp()
      FROM u, jsonb_to_recordset(u.logs) AS x(id text, step_id text, name text, op text, attempt int, data jsonb)
      -- A checkpoint logs the steps that were new; a run's end logs all it carries (its own ops).
      WHERE u.ending OR u.fresh ? x.step_id
    )${claiming ? `, ${claimCtes({ at: 2, owner: 3, until: 4, limit: 5 }, 'SELECT run_id FROM b')}` : ''}
    SELECT id, NULL::jsonb AS run, NULL::jsonb AS fn FROM u
    ${claiming ? 'UNION ALL SELECT NULL, to_jsonb(claimed), to_jsonb(f) FROM claimed LEFT JOIN executor_functions f ON f.id = claimed.function_id' : ''}`;
}
const WRITE = writeStatement(false);
const WRITE_AND_CLAIM = writeStatement(true);

/** Writes one batch (`writeStatement`); returns the runs stored and the runs claimed. */
async function write(db: Db, batch: Entry[]): Promise<{ stored: Set<string>; claimed: ClaimedRun[] }> {
  const rows = JSON.stringify(batch.map((e) => ({ run_id: e.runId, owner: e.owner, steps: e.steps, ids: e.ids, logs: e.logs, attempt: e.attempt, fin: e.fin })));
  const asking = batch.filter((e) => e.claim);
  // One executor per writer claims through it, so the first request names the owner and the lease.
  const claim = asking[0]?.claim;
  const res = await poolOf(db).query<{ id: string | null; run: Record<string, unknown> | null; fn: Record<string, unknown> | null }>(
    claim
      ? { name: 'executor_write_claim', text: WRITE_AND_CLAIM, values: [rows, ...claimValues({ ...claim, limit: asking.length })] }
      : { name: 'executor_write', text: WRITE, values: [rows] },
  );
  const stored = new Set<string>();
  const claimed: ClaimedRun[] = [];
  for (const r of res.rows) {
    if (r.id) stored.add(r.id);
    else if (r.run) claimed.push(claimedRow(r.run, r.fn));
  }
  return { stored, claimed };
}
