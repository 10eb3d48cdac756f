import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { taskActivities, tasks, users, type TaskRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { AppError, conflict, databaseRefusal, notFound } from '@/server/http/errors';
import type { ApproveBatchBody, ApprovalBody } from './contracts';
import { applyChange } from './move';
import { toPublicTask } from './present';
import { queueRun } from './runs';
import { plan, type TaskChange } from './transitions';
import { follows } from './followers';
import { pendingCartSummary } from '@/db/queries/carts';

/*
 * Tasks the assistant proposes and holds for the user (spec document 2: POST /tasks/{taskId}/approve,
 * /decline, /tasks/approve-batch). A held task is `createdBy: agent` with proposalStatus
 * `pending_user_approval`; its status is what creating would have given it (pending, or scheduled).
 * Approving starts it, or leaves it waiting for its scheduled time; declining archives it with the
 * reason in its conversation. Status moves go through transitions.ts like every other.
 */

type HeldTask = { task: TaskRow; ownerEmail: string };

/** The owner or a follower of the task (the spec's "owner, follower or worker"); anyone else gets 404. Locked for the transaction. */
async function reachableProposal(tx: Tx, actor: Actor, id: string): Promise<HeldTask> {
  const user = requireUser(actor);
  const [row] = await tx
    .select({ task: tasks, ownerEmail: users.email })
    .from(tasks)
    .innerJoin(users, eq(users.id, tasks.userId))
    .where(and(eq(tasks.id, id), eq(tasks.accountId, actor.accountId)))
    .limit(1)
    .for('update', { of: tasks });
  if (!row) throw notFound('Task');
  // A follower is named by a verified email only (followers.ts), never by users.email.
  if (!(await follows(tx, row.task, user.id))) throw notFound('Task');
  return row;
}

/** 409 naming where the task is: only a held proposal can be approved or declined. */
function requireHeld(task: TaskRow, action: 'approve' | 'decline'): void {
  if (task.createdBy === 'agent' && task.proposalStatus === 'pending_user_approval') return;
  const why = task.createdBy !== 'agent' ? 'was not proposed by the assistant' : `is already ${task.proposalStatus ?? 'resolved'}`;
  throw conflict(
    `The task ${why} (status ${task.status}): only a task awaiting approval can be ${action}d`,
    { taskStatus: task.status, proposalStatus: task.proposalStatus },
    'not_pending_approval',
  );
}

/** The reason, when given, is the user's message in the task conversation (for the run that follows). */
async function saveReason(tx: Tx, task: TaskRow, reason: string | undefined, runId: string | null): Promise<void> {
  if (!reason?.trim()) return;
  await tx.insert(taskActivities).values({ taskId: task.id, accountId: task.accountId, kind: 'user', content: reason, platform: 'api', runId });
}

/**
 * Approve inside a transaction: a pending task starts (a queued run), a scheduled one whose time
 * is still ahead keeps waiting for it, and one whose time passed while it was held starts now.
 */
async function approveIn(tx: Tx, actor: Actor, id: string, reason: string | undefined) {
  const { task, ownerEmail } = await reachableProposal(tx, actor, id);
  requireHeld(task, 'approve');
  const approved = { proposalStatus: 'approved' } as const;
  let change: TaskChange & Partial<TaskRow>;
  let trigger: 'process' | 'schedule' | null = null;
  if (task.status === 'scheduled' && task.scheduledFor && task.scheduledFor.getTime() > Date.now()) change = approved;
  else if (task.status === 'scheduled') {
    change = { ...plan(task, 'schedule_due', 'executing'), ...approved };
    trigger = 'schedule';
  } else {
    // Refused (409 naming the status) when the held task is no longer pending, e.g. stopped meanwhile.
    change = { ...plan(task, 'start', 'executing'), ...approved };
    trigger = 'process';
  }
  const row = await applyChange(tx, task, change, 'start');
  const runId = trigger ? (await queueRun(tx, row, trigger)).id : null;
  await saveReason(tx, row, reason, runId);
  return { ok: true as const, task: toPublicTask(row, ownerEmail) };
}

export async function approveTask(db: Db, actor: Actor, id: string, input: z.infer<typeof ApprovalBody>) {
  return db.transaction((tx) => approveIn(tx, actor, id, input.reason));
}

/** Declined proposals are archived (no run); the reason goes into the task conversation. */
export async function declineTask(db: Db, actor: Actor, id: string, input: z.infer<typeof ApprovalBody>) {
  return db.transaction(async (tx) => {
    const { task, ownerEmail } = await reachableProposal(tx, actor, id);
    requireHeld(task, 'decline');
    const row = await applyChange(tx, task, { ...plan(task, 'put_status', 'archived'), proposalStatus: 'declined' }, 'put_status');
    await saveReason(tx, row, input.reason, null);
    return { ok: true as const, task: toPublicTask(row, ownerEmail, await pendingCartSummary(tx, row.id)) };
  });
}

/**
 * Each id in its own transaction, in the order given (duplicates once): one refusal never undoes
 * or stops the others. A failure carries the same code and message the single approve would.
 */
export async function approveBatch(db: Db, actor: Actor, input: z.infer<typeof ApproveBatchBody>) {
  requireUser(actor);
  const approved: string[] = [];
  const failed: { taskId: string; error: string; errorCode: string }[] = [];
  for (const taskId of [...new Set(input.taskIds)]) {
    try {
      await db.transaction((tx) => approveIn(tx, actor, taskId, undefined));
      approved.push(taskId);
    } catch (e) {
      const known = e instanceof AppError ? e : databaseRefusal(e);
      if (!known) throw e;
      failed.push({ taskId, error: known.message, errorCode: known.code });
    }
  }
  return { ok: true as const, batch: { approved, failed } };
}
