import { and, eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Db } from '@/db/client';
import { executorRuns, type ExecutorFunctionRow, type ExecutorRunRow } from '@/db/schema';
import { concurrencyOf, type FunctionConfig } from './store';

type Json = Record<string, unknown>;

/** A claimed run with its function as registered (null when none is: the run then fails). */
export type ClaimedRun = { run: ExecutorRunRow; fn: ExecutorFunctionRow | null };

/** What a claim asks for: this worker's lease on up to `limit` runs. */
export type ClaimRequest = { owner: string; now: Date; leaseMs: number; limit: number };

type Candidate = { id: string; status: string; concurrency_key: string | null; fn: Record<string, unknown> | null };

/** A function row as to_jsonb gives it (snake_case, the time as text). */
function functionRow(j: Record<string, unknown> | null): ExecutorFunctionRow | null {
  if (!j) return null;
  return { id: String(j.id), appName: String(j.app_name), url: String(j.url), config: j.config as Json, updatedAt: new Date(String(j.updated_at)) };
}

/** A run row as to_jsonb gives it (snake_case, times as text). */
function runRow(j: Record<string, unknown>): ExecutorRunRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)));
  return {
    id: String(j.id),
    functionId: String(j.function_id),
    event: j.event as Json,
    status: j.status as ExecutorRunRow['status'],
    steps: j.steps as Record<string, Json>,
    stack: j.stack as string[],
    attempt: Number(j.attempt),
    wait: (j.wait ?? null) as Json | null,
    concurrencyKey: (j.concurrency_key ?? null) as string | null,
    availableAt: date(j.available_at)!,
    leaseOwner: (j.lease_owner ?? null) as string | null,
    leaseUntil: date(j.lease_until),
    output: j.output ?? null,
    error: (j.error ?? null) as Json | null,
    parentRunId: (j.parent_run_id ?? null) as string | null,
    createdAt: date(j.created_at)!,
    updatedAt: date(j.updated_at)!,
    runningSince: date(j.running_since),
    stepStartedAt: date(j.step_started_at),
    finishedAt: date(j.finished_at),
  };
}

/** A claimed run as a claim statement returns it (`to_jsonb` of the run and of its function). */
export const claimedRow = (run: Record<string, unknown>, fn: Record<string, unknown> | null): ClaimedRun => ({ run: runRow(run), fn: functionRow(fn) });

/**
 * The pool under the executor's database handle (drizzle keeps it as `$client`), for the prepared
 * statements of the hot path; drizzle's `execute` cannot name a statement.
 */
export function poolOf(db: Db): pg.Pool {
  const pool = (db as unknown as { $client?: pg.Pool }).$client;
  if (!pool || typeof pool.query !== 'function') throw new Error('executor: the database handle has no pg pool');
  return pool;
}

/** Where a claim's four values sit among its statement's parameters ($n): the time, the owner, the lease's end, the limit. */
export type ClaimParams = { at: number; owner: number; until: number; limit: number };

/** A claim's four parameter values, in ClaimParams order. */
export const claimValues = (req: ClaimRequest): [string, string, string, number] => [
  req.now.toISOString(),
  req.owner,
  new Date(req.now.getTime() + req.leaseMs).toISOString(),
  req.limit,
];

/**
 * The CTEs that claim up to `limit` runnable runs with FOR UPDATE SKIP LOCKED and a lease (ending
 * in `claimed`, the runs as updated), so two processes never run the same run at once and a
 * crashed process's runs return when the lease ends. Runs come from two partial indexes (leases
 * lapsed first, then runs due), so the cost does not grow with the number of runs that sleep or
 * wait, and many processes claiming at once each take their own batch without waiting for
 * another's. Runs with a concurrency key are left to `claimKeyed`. `exclude`: runs the same
 * statement writes otherwise (one statement must not update a row twice). Text with positional
 * parameters, so every statement that claims is a prepared statement (parsed and planned once
 * per connection, not once per claim).
 */
export function claimCtes(p: ClaimParams, exclude?: string): string {
  const not = exclude ? `AND id NOT IN (${exclude})` : '';
  return `lapsed AS (
      SELECT id FROM executor_runs WHERE status = 'running' AND lease_until <= $${p.at}::timestamptz ${not}
      ORDER BY lease_until LIMIT $${p.limit} FOR UPDATE SKIP LOCKED
    ), due AS (
      SELECT id FROM executor_runs
      WHERE status IN ('queued', 'sleeping', 'waiting') AND lease_until IS NULL AND available_at <= $${p.at}::timestamptz AND concurrency_key IS NULL
      ORDER BY available_at LIMIT $${p.limit} FOR UPDATE SKIP LOCKED
    ), pick AS (
      SELECT id FROM lapsed UNION ALL SELECT id FROM due LIMIT $${p.limit}
    ), claimed AS (
      UPDATE executor_runs r SET status = 'running', lease_owner = $${p.owner}, lease_until = $${p.until}::timestamptz,
        running_since = now(), step_started_at = now(), updated_at = now()
      FROM pick WHERE r.id = pick.id
      RETURNING r.*
    )`;
}

/**
 * Claims up to `limit` runnable runs (`claimCtes`), in one statement that also reads their
 * functions; when none without a concurrency key is due but one with a key is, takes the slower
 * path below for one.
 */
const CLAIM = `WITH ${claimCtes({ at: 1, owner: 2, until: 3, limit: 4 })}
    SELECT to_jsonb(claimed) AS run, to_jsonb(f) AS fn, NULL::boolean AS keyed
    FROM claimed LEFT JOIN executor_functions f ON f.id = claimed.function_id
    UNION ALL
    SELECT NULL, NULL, EXISTS (
      SELECT 1 FROM executor_runs
      WHERE status IN ('queued', 'sleeping', 'waiting') AND lease_until IS NULL AND available_at <= $1::timestamptz AND concurrency_key IS NOT NULL
    ) WHERE NOT EXISTS (SELECT 1 FROM claimed)`;

export async function claimRuns(db: Db, req: ClaimRequest): Promise<ClaimedRun[]> {
  const { rows } = await poolOf(db).query<{ run: Record<string, unknown> | null; fn: Record<string, unknown> | null; keyed: boolean | null }>({
    name: 'executor_claim',
    text: CLAIM,
    values: claimValues(req),
  });
  const claimed = rows.filter((r) => r.run).map((r) => claimedRow(r.run!, r.fn));
  if (claimed.length || !rows.some((r) => r.keyed)) return claimed;
  const keyed = await claimKeyed(db, req.owner, req.now, req.leaseMs);
  return keyed ? [keyed] : [];
}

/**
 * Claims a due run that has a concurrency key, when its key has fewer than `limit` running runs.
 * Claims are serialized per key (an advisory lock) so two processes cannot both see a free slot.
 */
async function claimKeyed(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedRun | null> {
  return db.transaction(async (tx) => {
    const { rows: candidates } = await tx.execute<Candidate>(sql`
      WITH due AS (
        SELECT id, status, concurrency_key, function_id FROM executor_runs
        WHERE status IN ('queued', 'sleeping', 'waiting') AND lease_until IS NULL AND available_at <= ${now.toISOString()}::timestamptz AND concurrency_key IS NOT NULL
        ORDER BY available_at LIMIT 10 FOR UPDATE SKIP LOCKED
      )
      SELECT due.id, due.status, due.concurrency_key, to_jsonb(f) AS fn FROM due LEFT JOIN executor_functions f ON f.id = due.function_id`);
    for (const cand of candidates) {
      const fn = functionRow(cand.fn);
      const limit = fn ? (concurrencyOf(fn.config as unknown as FunctionConfig)?.limit ?? 0) : 0;
      const keyed = limit > 0;
      // The update below is a later statement than the lock, so it counts every run claimed and committed before it.
      if (keyed) await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${cand.concurrency_key}))`);
      const slotFree = keyed
        ? sql`(SELECT count(*) FROM ${executorRuns} WHERE ${executorRuns.concurrencyKey} = ${cand.concurrency_key} AND ${executorRuns.status} = 'running') < ${limit}`
        : undefined;
      const [claimed] = await tx
        .update(executorRuns)
        .set({ status: 'running', leaseOwner: owner, leaseUntil: new Date(now.getTime() + leaseMs), runningSince: sql`now()`, stepStartedAt: sql`now()` })
        .where(and(eq(executorRuns.id, cand.id), slotFree))
        .returning();
      if (claimed) return { run: claimed, fn };
    }
    return null;
  });
}
