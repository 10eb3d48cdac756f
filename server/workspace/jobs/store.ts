import os from 'node:os';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { workspaceJobs, type CodingRequest, type WorkspaceJobRow, type WorkspaceJobStatus } from '@/db/schema';
import { notFound } from '@/server/http/errors';

/*
 * The job records: written by the process running the job (this module), read by job_status.
 * A running job's process touches `heartbeatAt` every few seconds; a running job whose heartbeat
 * is older than STALE_MS lost its process (a restart, a crash) and is reported failed.
 */

export const HEARTBEAT_MS = 5_000;
const STALE_MS = 60_000;
/** Characters of output kept on the record. */
export const TAIL_CHARS = 8_000;
const MAX_PROGRESS = 50;

export const runnerName = () => `${os.hostname()}:${process.pid}`;

export async function createJob(
  db: Tx,
  job: { accountId: string; userId: string; taskId: string | null; runId: string | null } & ({ kind: 'command'; command: string } | { kind: 'coding'; coding: CodingRequest }),
): Promise<WorkspaceJobRow> {
  const [row] = await db
    .insert(workspaceJobs)
    .values({ ...job, runner: runnerName(), progress: [{ at: new Date().toISOString(), note: job.kind === 'coding' ? `coding job for ${job.coding.repo} started` : 'command started' }] })
    .returning();
  return row!;
}

export async function jobRow(db: Tx, id: string): Promise<WorkspaceJobRow | null> {
  const [row] = await db.select().from(workspaceJobs).where(eq(workspaceJobs.id, id));
  return row ?? null;
}

/** A note on what the job is doing now, and the heartbeat. Only the job's own runner writes notes, so read-then-write is safe. */
export async function noteProgress(db: Db, id: string, note: string) {
  const row = await jobRow(db, id);
  if (!row || row.status !== 'running') return;
  const progress = [...row.progress, { at: new Date().toISOString(), note: note.slice(0, 500) }].slice(-MAX_PROGRESS);
  await db
    .update(workspaceJobs)
    .set({ progress, heartbeatAt: new Date() })
    .where(and(eq(workspaceJobs.id, id), eq(workspaceJobs.status, 'running')));
}

export async function heartbeat(db: Db, id: string, outputTail?: string) {
  await db
    .update(workspaceJobs)
    .set({ heartbeatAt: new Date(), ...(outputTail !== undefined ? { outputTail: outputTail.slice(-TAIL_CHARS) } : {}) })
    .where(and(eq(workspaceJobs.id, id), eq(workspaceJobs.status, 'running')));
}

export async function addCredits(db: Db, id: string, credits: number) {
  if (credits > 0) await db.update(workspaceJobs).set({ chargedCredits: sql`${workspaceJobs.chargedCredits} + ${credits}` }).where(eq(workspaceJobs.id, id));
}

export type JobEnd = { status: Exclude<WorkspaceJobStatus, 'running'>; exitCode?: number | null; outputTail?: string; result?: Record<string, unknown>; error?: string };

/** Ends a running job once; the row as it ended, or null when it had already ended. */
export async function finishJob(db: Tx, id: string, end: JobEnd): Promise<WorkspaceJobRow | null> {
  const [row] = await db
    .update(workspaceJobs)
    .set({
      status: end.status,
      exitCode: end.exitCode ?? null,
      ...(end.outputTail !== undefined ? { outputTail: end.outputTail.slice(-TAIL_CHARS) } : {}),
      result: end.result ?? null,
      error: end.error?.slice(0, 2000) ?? null,
      endedAt: new Date(),
      heartbeatAt: new Date(),
    })
    .where(and(eq(workspaceJobs.id, id), eq(workspaceJobs.status, 'running')))
    .returning();
  return row ?? null;
}

/** The user's job; 404 for anyone else's. A running job whose process is gone is ended as failed here. */
export async function ownJob(db: Tx, owner: { accountId: string; userId: string }, id: string, now = new Date()): Promise<WorkspaceJobRow> {
  const [row] = await db
    .select()
    .from(workspaceJobs)
    .where(and(eq(workspaceJobs.id, id), eq(workspaceJobs.accountId, owner.accountId), eq(workspaceJobs.userId, owner.userId)));
  if (!row) throw notFound('Job');
  if (row.status !== 'running' || row.heartbeatAt.getTime() > now.getTime() - STALE_MS) return row;
  const [ended] = await db
    .update(workspaceJobs)
    .set({ status: 'failed', error: `interrupted: the Steward process running it (${row.runner}) stopped`, endedAt: now })
    .where(and(eq(workspaceJobs.id, id), eq(workspaceJobs.status, 'running'), lt(workspaceJobs.heartbeatAt, new Date(now.getTime() - STALE_MS))))
    .returning();
  return ended ?? row;
}

/** A job as the model and the task see it. */
export const presentJob = (j: WorkspaceJobRow) => ({
  jobId: j.id,
  kind: j.kind,
  status: j.status,
  ...(j.command ? { command: j.command.slice(0, 500) } : {}),
  ...(j.coding ? { repo: j.coding.repo } : {}),
  exitCode: j.exitCode,
  progress: j.progress.slice(-10).map((p) => p.note),
  outputTail: j.outputTail.slice(-4000),
  result: j.result,
  error: j.error,
  startedAt: j.startedAt.toISOString(),
  endedAt: j.endedAt?.toISOString() ?? null,
});
