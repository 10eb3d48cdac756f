import { sharedDatabase, type Db } from '@/db/client';
import type { WorkspaceJobRow } from '@/db/schema';
import type { ModelTier } from '@/server/models/tiers';
import { AppError } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { SandboxGone } from '../shell/channel';
import { sandboxFor } from '../shell/manager';
import { JobFailure } from './coding-agent';
import { runCodingJob } from './coding';
import { reportToTask } from './report';
import { finishJob, heartbeat, HEARTBEAT_MS, jobRow, TAIL_CHARS, type JobEnd } from './store';

/*
 * Background jobs run in the Steward process that accepted them, like the sandbox they use.
 * job_start records the job in the tool step's transaction; the runner starts only once that
 * record is visible (the step committed), so a step that was rolled back or retried never leaves
 * a job running that nobody asked for. While it runs it beats every few seconds (store.ts); when
 * it ends, its record is closed and the task is told (report.ts).
 */

const COMMIT_WAIT_MS = 30_000;

/** The process-wide database: the tool step's transaction is long gone when a job ends. */
export function jobsDb(): Db {
  if (!process.env.DATABASE_URL) throw new AppError(503, 'jobs_unavailable', 'Background jobs need the deployment database (DATABASE_URL)');
  return sharedDatabase().db;
}

async function committed(db: Db, id: string): Promise<boolean> {
  const until = Date.now() + COMMIT_WAIT_MS;
  while (Date.now() < until) {
    if (await jobRow(db, id)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function runCommandJob(db: Db, job: WorkspaceJobRow, output: { tail: string }): Promise<JobEnd> {
  const sandbox = await sandboxFor(job.accountId, job.userId);
  const r = await sandbox.run(job.command!, {
    id: job.id,
    timeoutMs: sandbox.cfg.jobSeconds * 1000,
    onOutput: (_stream, text) => {
      output.tail = (output.tail + text).slice(-TAIL_CHARS);
    },
  });
  const tail = output.tail || `${r.stdout}${r.stderr}`;
  if (r.timedOut) return { status: 'failed', exitCode: r.exitCode, outputTail: tail, error: `stopped after ${sandbox.cfg.jobSeconds} s, the limit for a background job` };
  if (r.stoppedForDisk) return { status: 'failed', exitCode: r.exitCode, outputTail: tail, error: 'stopped: the workspace reached its disk quota' };
  return { status: r.exitCode === 0 ? 'succeeded' : 'failed', exitCode: r.exitCode, outputTail: tail, ...(r.exitCode === 0 ? {} : { error: `exit ${r.exitCode ?? r.signal}` }) };
}

/** Starts the job in the background; never throws (what goes wrong ends the job as failed). */
export function launchJob(db: Db, job: WorkspaceJobRow, tier: ModelTier): void {
  void (async () => {
    if (!(await committed(db, job.id))) return;
    const output = { tail: '' };
    const beat = setInterval(() => void heartbeat(db, job.id, job.kind === 'command' ? output.tail : undefined).catch(() => undefined), HEARTBEAT_MS);
    beat.unref();
    let end: JobEnd;
    try {
      end = job.kind === 'command' ? await runCommandJob(db, job, output) : await runCodingJob(db, job, tier);
    } catch (e) {
      const known = e instanceof JobFailure || e instanceof AppError || e instanceof SandboxGone;
      if (!known) logger.warn({ err: e, jobId: job.id }, 'workspace job failed');
      end = { status: 'failed', outputTail: output.tail, error: known ? e.message : `internal error: ${(e as Error).message ?? String(e)}` };
    } finally {
      clearInterval(beat);
    }
    const ended = await finishJob(db, job.id, end);
    if (ended) await reportToTask(db, ended);
  })().catch((e: unknown) => logger.warn({ err: e, jobId: job.id }, 'workspace job could not be recorded'));
}
