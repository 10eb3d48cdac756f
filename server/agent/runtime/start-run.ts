import { eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { taskRuns } from '@/db/schema';
import { applyChange } from '@/server/tasks/move';
import { plan } from '@/server/tasks/transitions';
import { lockedRun } from './run-state';

export type RunStart = { go: true; taskId: string } | { go: false; reason: string };

/**
 * The first step of a run: queued → running. A run queued while the task was pending (the
 * assistant woken by mark-not-done) starts the task; one whose task was stopped, finished or
 * deleted meanwhile (or that already started: a replayed event) does nothing.
 */
export async function startRun(db: Db, runId: string, now = new Date()): Promise<RunStart> {
  return db.transaction(async (tx) => {
    const locked = await lockedRun(tx, runId);
    if (!locked) return { go: false as const, reason: 'the run or its task no longer exists' };
    const { run, task } = locked;
    if (run.status !== 'queued') return { go: false as const, reason: `the run is ${run.status}` };
    if (task.status === 'pending') await applyChange(tx, task, plan(task, 'start', 'executing', undefined, now), 'start');
    else if (task.status !== 'executing') {
      await tx.update(taskRuns).set({ status: 'cancelled', endedAt: now }).where(eq(taskRuns.id, run.id));
      return { go: false as const, reason: `the task is ${task.status}` };
    }
    await tx.update(taskRuns).set({ status: 'running', startedAt: now }).where(eq(taskRuns.id, run.id));
    return { go: true as const, taskId: task.id };
  });
}
