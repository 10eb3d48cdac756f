import type { Tx } from '@/db/client';
import type { TaskRow } from '@/db/schema';
import { createNotice } from './create';

/*
 * The events that need the user, turned into notices (create.ts). Questions are noticed by ask_user
 * itself, approvals by the approval email (server/approvals/notify.ts), time boxes and handoffs
 * where they start; task statuses here, from the tasks area's move hook.
 */

const short = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}...` : s);

/** A task that failed (`error`), stopped for credits (`credits_blocked`), or was given up (`abandoned`, server/tasks/holds.ts). */
export async function taskStatusNotice(tx: Tx, task: TaskRow): Promise<void> {
  if (task.status === 'abandoned') return abandonedNotice(tx, task);
  if (task.status !== 'error' && task.status !== 'credits_blocked') return;
  const failed = task.status === 'error';
  await createNotice(tx, {
    accountId: task.accountId,
    userId: task.userId,
    kind: failed ? 'task_failed' : 'credits_blocked',
    dedupeKey: `${task.status}:${task.id}:${task.updatedAt.toISOString()}`,
    taskId: task.id,
    subject: failed ? `Task failed: ${short(task.title)}` : `Out of credits: ${short(task.title)}`,
    text: failed
      ? `The task "${task.title}" stopped with an error. Open it to see what happened, and send a message to try again.`
      : `The task "${task.title}" stopped because a credit budget is spent. It resumes on its own once credits are topped up.`,
    linkPath: `/tasks/${task.id}`,
  });
}

/** A failure nobody took up was given up: the same kind as a failure (the user reads it as one), once per abandonment. */
async function abandonedNotice(tx: Tx, task: TaskRow): Promise<void> {
  await createNotice(tx, {
    accountId: task.accountId,
    userId: task.userId,
    kind: 'task_failed',
    dedupeKey: `abandoned:${task.id}:${task.updatedAt.toISOString()}`,
    taskId: task.id,
    subject: `Task given up: ${short(task.title)}`,
    text: `The task "${task.title}" failed and stayed untouched, so Steward gave it up. Open it and send a message if you still want it done.`,
    linkPath: `/tasks/${task.id}`,
  });
}

/** A time-boxed cart: its actions go out when the window ends unless the user stops them (urgent: quiet hours do not hold it). */
export async function timeBoxNotice(tx: Tx, cart: { id: string; accountId: string; userId: string; taskId: string }, taskTitle: string, expiresAt: Date): Promise<void> {
  await createNotice(tx, {
    accountId: cart.accountId,
    userId: cart.userId,
    kind: 'time_box',
    dedupeKey: `time_box:${cart.id}`,
    taskId: cart.taskId,
    cartId: cart.id,
    urgent: true,
    subject: `Goes out at ${expiresAt.toUTCString()}: ${short(taskTitle)}`,
    text: `Your assistant staged actions for the task "${taskTitle}". They go out at ${expiresAt.toUTCString()} unless you edit or cancel them before then.`,
    linkPath: '/approvals',
  });
}

/** A handoff waits for the user to take the browser. */
export async function handoffNotice(tx: Tx, handoff: { id: string; accountId: string; userId: string; taskId: string | null; prompt: string }): Promise<void> {
  await createNotice(tx, {
    accountId: handoff.accountId,
    userId: handoff.userId,
    kind: 'handoff',
    dedupeKey: `handoff:${handoff.id}`,
    taskId: handoff.taskId,
    handoffId: handoff.id,
    subject: `Your assistant needs you in the browser`,
    text: `Your assistant needs you to take over its browser: ${handoff.prompt}`,
    linkPath: `/handoffs/${handoff.id}`,
  });
}
