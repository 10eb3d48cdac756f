import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';

type Json = Record<string, unknown>;

/** Function configurations as the Inngest SDK registers them (PUT on the serve URL → POST /fn/register). */
export const executorFunctions = pgTable('executor_functions', {
  id: text('id').primaryKey(),
  appName: text('app_name').notNull(),
  /** The serve URL the SDK registered for this function's steps. */
  url: text('url').notNull(),
  config: jsonb('config').$type<Json>().notNull(),
  updatedAt: updatedAt(),
});

export const executorEvents = pgTable(
  'executor_events',
  {
    id: idColumn(),
    name: text('name').notNull(),
    data: jsonb('data').$type<Json>().notNull().default({}),
    ts: bigint('ts', { mode: 'number' }).notNull(),
    receivedAt: createdAt(),
  },
  (t) => [index('executor_events_name').on(t.name, t.receivedAt)],
);

export const runStatuses = ['queued', 'running', 'sleeping', 'waiting', 'completed', 'failed', 'cancelled'] as const;

/**
 * One function run. `steps` is the memo the SDK replays (hashed step id → {type:'data'|'error'}),
 * `stack` the completion order. A run is claimed with FOR UPDATE SKIP LOCKED and a lease.
 */
export const executorRuns = pgTable(
  'executor_runs',
  {
    id: idColumn(),
    functionId: text('function_id').notNull(),
    event: jsonb('event').$type<Json>().notNull(),
    status: text('status', { enum: runStatuses }).notNull().default('queued'),
    steps: jsonb('steps').$type<Record<string, Json>>().notNull().default({}),
    stack: jsonb('stack').$type<string[]>().notNull().default([]),
    /** Attempt of the current step (or of the function body), 0-based. */
    attempt: integer('attempt').notNull().default(0),
    /** What the run waits for: {kind:'sleep'|'event'|'invoke', stepId, ...}. */
    wait: jsonb('wait').$type<Json | null>(),
    concurrencyKey: text('concurrency_key'),
    availableAt: ts('available_at').notNull().defaultNow(),
    leaseOwner: text('lease_owner'),
    leaseUntil: ts('lease_until'),
    /** While running: when its worker claimed it (how long it has run), and when the step it runs now began (set again as each step is stored). */
    runningSince: ts('running_since'),
    stepStartedAt: ts('step_started_at'),
    output: jsonb('output').$type<unknown>(),
    error: jsonb('error').$type<Json | null>(),
    parentRunId: text('parent_run_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    index('executor_runs_ready').on(t.status, t.availableAt),
    index('executor_runs_function').on(t.functionId, t.status),
    // What the executor asks on every claim and before it sleeps, answered from these two partial
    // indexes however many runs sleep or wait: the next run due, and the next lease to lapse.
    index('executor_runs_due').on(t.availableAt).where(sql`status IN ('queued', 'sleeping', 'waiting') AND lease_until IS NULL`),
    index('executor_runs_leased').on(t.leaseUntil).where(sql`status = 'running'`),
    // An event finds the runs waiting for it without reading the others.
    index('executor_runs_waiting_event').on(sql`(${t.wait} ->> 'event')`).where(sql`status = 'waiting'`),
    // The admin CLI's listings, newest first, optionally of one function.
    index('executor_runs_created').on(t.createdAt),
    index('executor_runs_function_created').on(t.functionId, t.createdAt),
  ],
);

/** Every step execution, for inspection (`npm run admin -- run --id`). */
export const executorStepLog = pgTable(
  'executor_step_log',
  {
    id: idColumn(),
    runId: text('run_id').notNull(),
    stepId: text('step_id').notNull(),
    name: text('name'),
    op: text('op').notNull(),
    attempt: integer('attempt').notNull(),
    data: jsonb('data').$type<unknown>(),
    createdAt: createdAt(),
  },
  (t) => [index('executor_step_log_run').on(t.runId, t.createdAt)],
);

export const executorCrons = pgTable(
  'executor_crons',
  {
    functionId: text('function_id').notNull(),
    cron: text('cron').notNull(),
    nextAt: ts('next_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.functionId, t.cron] })],
);

export type ExecutorRunRow = typeof executorRuns.$inferSelect;
export type ExecutorFunctionRow = typeof executorFunctions.$inferSelect;
