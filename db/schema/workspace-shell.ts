import { doublePrecision, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { createdAt, idColumn, ts } from './columns';
import { users } from './users';

export const workspaceJobKinds = ['command', 'coding'] as const;
export const workspaceJobStatuses = ['running', 'succeeded', 'failed'] as const;
export type WorkspaceJobStatus = (typeof workspaceJobStatuses)[number];

/** What a coding job was asked to do: a repository (`owner/name`) and the instructions. */
export type CodingRequest = { repo: string; instructions: string };

/** A short line of what a job did so far, oldest first (job_status shows them). */
export type JobProgress = { at: string; note: string };

/**
 * Background work in a user's workspace sandbox (spec 5, job_start / job_status): a shell command
 * that may run longer than shell_run's 60 seconds, or a coding job (a coding agent in a checkout
 * of the user's repository, ending in a pull request). The process that runs it writes its
 * progress here; `heartbeatAt` says it is still alive, so a job whose process died (a restart)
 * is reported failed instead of running forever. `taskId` is the task that started it: its
 * result comes back to that task as an activity and a wake.
 */
export const workspaceJobs = pgTable(
  'workspace_jobs',
  {
    id: idColumn(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Not a foreign key: a deleted task leaves its job's record (the job stops reporting). */
    taskId: text('task_id'),
    runId: text('run_id'),
    kind: text('kind', { enum: workspaceJobKinds }).notNull(),
    command: text('command'),
    coding: jsonb('coding').$type<CodingRequest>(),
    status: text('status', { enum: workspaceJobStatuses }).notNull().default('running'),
    exitCode: integer('exit_code'),
    /** The end of the output (capped): what job_status shows. */
    outputTail: text('output_tail').notNull().default(''),
    progress: jsonb('progress').$type<JobProgress[]>().notNull().default([]),
    /** What a finished job produced (a coding job: the pull request). */
    result: jsonb('result').$type<Record<string, unknown>>(),
    error: text('error'),
    /** Credits its model calls were charged (coding jobs). */
    chargedCredits: doublePrecision('charged_credits').notNull().default(0),
    /** `hostname:pid` of the Steward process running it. */
    runner: text('runner').notNull(),
    heartbeatAt: ts('heartbeat_at').notNull().defaultNow(),
    startedAt: createdAt(),
    endedAt: ts('ended_at'),
  },
  (t) => [index('workspace_jobs_user').on(t.accountId, t.userId, t.startedAt), index('workspace_jobs_task').on(t.taskId)],
);

export type WorkspaceJobRow = typeof workspaceJobs.$inferSelect;
