import { and, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { driveFiles, taskActivities, type TaskRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { conflict, invalidFields } from '@/server/http/errors';
import { ownTask } from './access';
import type { ProcessTaskBody } from './contracts';
import { applyChange } from './move';
import { openRun, queueRun } from './runs';
import { allowed, plan, refused, type TaskChange } from './transitions';

/** Only files the user could open themself are attached; the rest are dropped, as the spec says. */
async function readableFileIds(tx: Tx, task: TaskRow, files: { fileId: string }[] | undefined): Promise<string[]> {
  const ids = [...new Set((files ?? []).map((f) => f.fileId))];
  if (!ids.length) return [];
  const rows = await tx
    .select({ id: driveFiles.id })
    .from(driveFiles)
    .where(and(inArray(driveFiles.id, ids), eq(driveFiles.accountId, task.accountId), eq(driveFiles.userId, task.userId), eq(driveFiles.status, 'ready')));
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => found.has(id));
}

/**
 * The change that brings a task to executing: a waiting task is woken first, a stopped task or
 * a thread at rest is resumed first (both to pending), then it starts. Null when the process
 * call does not start a run from this status (refused by the caller).
 */
function toExecuting(task: TaskRow): TaskChange | null {
  if (task.status === 'pending') return plan(task, 'start', 'executing');
  for (const move of ['wake', 'resume'] as const) {
    if (!allowed(task.status, move, 'pending')) continue;
    const woken = plan(task, move, 'pending');
    return { ...woken, ...plan({ ...task, ...woken } as TaskRow, 'start', 'executing') };
  }
  return null;
}

/**
 * POST /tasks/{taskId}/process (spec document 2, process semantics): the message is saved to
 * the task first. During a run it goes to that run (never a second one); on a scheduled task
 * it is required, attached, and the task keeps its time; otherwise the task wakes or resumes
 * and a run is queued. The run starts once this transaction commits (runs.ts dispatcher, registered by server/compose/engine-handovers.ts).
 * `platform`: where the message came from (the API, or a channel the owner wrote on).
 */
export async function processTask(db: Db, actor: Actor, id: string, input: z.infer<typeof ProcessTaskBody>, opts: { platform?: string } = {}) {
  return db.transaction(async (tx) => {
    const { task } = await ownTask(tx, actor, id, true);
    // A task the assistant proposed runs only once its user approved it (POST /tasks/{id}/approve).
    if (task.proposalStatus === 'pending_user_approval') {
      throw conflict('The task awaits approval: approve or decline it first', { taskStatus: task.status, proposalStatus: task.proposalStatus }, 'pending_approval');
    }
    const message = input.message?.trim() ? input.message : undefined;
    const fileIds = await readableFileIds(tx, task, input.files);
    let runId: string | null;
    let note: string;
    if (task.status === 'scheduled') {
      if (!message) throw invalidFields([{ field: 'message', problem: 'is required on a scheduled task (it is attached and the task runs at its scheduled time)' }]);
      runId = null;
      note = `Message attached; the task runs at ${task.scheduledFor!.toISOString()}`;
    } else if (task.status === 'executing') {
      runId = (await openRun(tx, task.id))?.id ?? (await queueRun(tx, task, 'process')).id;
      note = 'Message sent to the running task';
    } else {
      const change = toExecuting(task);
      if (!change) throw refused(task.status, 'process');
      const row = await applyChange(tx, task, change, 'process');
      // A run already queued (mark-not-done wakes the assistant) takes the message: one run per task.
      runId = (await openRun(tx, task.id))?.id ?? (await queueRun(tx, row, 'process')).id;
      note = 'Run queued';
    }
    if (message !== undefined || fileIds.length) {
      await tx.insert(taskActivities).values({ taskId: task.id, accountId: task.accountId, kind: 'user', content: message ?? '', platform: opts.platform ?? 'api', runId, fileIds });
    }
    return { ok: true as const, process: { success: true, taskId: task.id, executionId: runId, message: note } };
  });
}
