import { asc, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { executorRuns, executorStepLog, runStatuses } from '@/db/schema';
import { AppError, notFound } from '@/server/http/errors';

/** The local counterpart of Inngest's dashboard: recent runs, newest first. */
export async function listRuns(db: Db, status?: string, limit = 50) {
  if (status && !(runStatuses as readonly string[]).includes(status)) {
    throw new AppError(400, 'bad_request', `--status must be one of ${runStatuses.join(', ')}`);
  }
  const rows = await db
    .select()
    .from(executorRuns)
    .where(status ? eq(executorRuns.status, status as (typeof runStatuses)[number]) : undefined)
    .orderBy(desc(executorRuns.createdAt))
    .limit(limit);
  return {
    runs: rows.map((r) => ({
      id: r.id,
      functionId: r.functionId,
      status: r.status,
      event: (r.event as { name?: string }).name ?? null,
      attempt: r.attempt,
      availableAt: r.availableAt.toISOString(),
      createdAt: r.createdAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
    })),
  };
}

/** One run with its event, output or error, and every step execution in order. */
export async function runDetail(db: Db, id: string) {
  const [run] = await db.select().from(executorRuns).where(eq(executorRuns.id, id));
  if (!run) throw notFound('Run');
  const steps = await db.select().from(executorStepLog).where(eq(executorStepLog.runId, id)).orderBy(asc(executorStepLog.createdAt));
  return {
    run: { ...run, availableAt: run.availableAt.toISOString(), createdAt: run.createdAt.toISOString(), updatedAt: run.updatedAt.toISOString(), finishedAt: run.finishedAt?.toISOString() ?? null, leaseUntil: run.leaseUntil?.toISOString() ?? null },
    steps: steps.map((s) => ({ stepId: s.stepId, name: s.name, op: s.op, attempt: s.attempt, data: s.data, at: s.createdAt.toISOString() })),
  };
}
