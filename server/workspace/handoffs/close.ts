import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { handoffs, taskActivities, tasks, type AccessHold, type HandoffCloseReason, type HandoffRow, type HandoffStatus } from '@/db/schema';
import { applyChange } from '@/server/tasks/move';
import { queueWakeRun } from '@/server/tasks/runs';
import { allowed, plan } from '@/server/tasks/transitions';
import { readControl, setControl } from '../control';

/*
 * How a handoff ends, whichever way (complete, defer, decline, resolve, expiry, supersede): the
 * row closes, control of the browser returns to the assistant if this handoff held it, and the
 * task that asked for it is told the outcome and woken. The outcome travels as the result of the
 * task's request_handoff call (its tool activity), so the next run reads it where it asked.
 */

export type Closing = {
  status: Exclude<HandoffStatus, 'pending' | 'starting' | 'ready' | 'active'>;
  reason: HandoffCloseReason | null;
  /** The person's words (defer message, resolve note). */
  message?: string | null;
  deferredUntil?: Date | null;
};

/** What the assistant is told, by outcome. */
const GUIDANCE: Record<string, string> = {
  completed: 'The user finished the handoff and gave the browser back: continue the task in your tab (read the page to see where things stand).',
  deferred: 'The user deferred the handoff: they will do it later. Respect their message; ask again only after deferredUntil (or when it suits, if none was given).',
  declined: 'The user declined the handoff: find another way or tell the user you cannot continue. Do not ask for a handoff again for this task for a while.',
  expired: 'Nobody answered the handoff before it expired: decide whether to ask again later, tell the user, or continue without it.',
  superseded: 'This handoff was replaced by a newer one.',
  task_closed: 'The task closed while the handoff was open.',
};

export async function closeHandoff(tx: Tx, h: HandoffRow, closing: Closing, now = new Date()): Promise<HandoffRow> {
  const [closed] = await tx
    .update(handoffs)
    .set({
      status: closing.status,
      closeReason: closing.reason,
      message: closing.message ?? null,
      deferredUntil: closing.deferredUntil ?? null,
      closedAt: now,
    })
    .where(and(eq(handoffs.id, h.id), isNull(handoffs.closedAt)))
    .returning();
  if (!closed) return h;
  const control = await readControl(tx, h.accountId, h.userId);
  if (control.handoffId === h.id) await setControl(tx, h.accountId, h.userId, { operator: 'agent', handoffId: null });
  if (closed.taskId && closing.reason !== 'task_closed') await tellTask(tx, closed, now);
  return closed;
}

/** The request_handoff result the next run replays gains the outcome; a waiting task wakes to read it. */
async function tellTask(tx: Tx, h: HandoffRow, now: Date): Promise<void> {
  const outcome = {
    handoffId: h.id,
    status: h.status,
    closeReason: h.closeReason,
    userMessage: h.message,
    deferredUntil: h.deferredUntil?.toISOString() ?? null,
    closedAt: now.toISOString(),
    next: GUIDANCE[h.closeReason ?? h.status] ?? null,
  };
  await tx
    .update(taskActivities)
    .set({ toolOutput: sql`coalesce(${taskActivities.toolOutput}, '{}'::jsonb) || jsonb_build_object('outcome', ${JSON.stringify(outcome)}::jsonb)` })
    .where(
      and(
        eq(taskActivities.taskId, h.taskId!),
        eq(taskActivities.toolName, 'request_handoff'),
        sql`${taskActivities.toolOutput}->>'handoffId' = ${h.id}`,
      ),
    );
  if (h.closeReason === 'superseded') return;
  const [task] = await tx.select().from(tasks).where(eq(tasks.id, h.taskId!)).for('update');
  if (!task) return;
  // Remembered on the task: the run reading the outcome rests in deferred_access or failed_access
  // if it ends waiting for the user (tasks/transitions.ts); access granted forgets an earlier refusal.
  const accessHold = accessHoldOf(h);
  if (task.status === 'executing') {
    await tx.update(tasks).set({ accessHold }).where(eq(tasks.id, task.id));
    return;
  }
  if (!allowed(task.status, 'wake', 'pending')) return;
  const woken = await applyChange(tx, task, { ...plan(task, 'wake', 'pending', undefined, now), accessHold }, 'wake');
  await queueWakeRun(tx, woken, 'wake');
}

/**
 * What a closed handoff means for the task's access (spec 2, Task statuses: deferred_access,
 * failed_access): put off until deferredUntil, refused, or expired unanswered; null when the user
 * completed it (or it closed for any other reason).
 */
function accessHoldOf(h: HandoffRow): AccessHold | null {
  const outcome = h.closeReason === 'deferred' || h.closeReason === 'declined' || h.closeReason === 'expired' ? h.closeReason : null;
  return outcome ? { outcome, handoffId: h.id, until: outcome === 'deferred' ? (h.deferredUntil?.toISOString() ?? null) : null } : null;
}
