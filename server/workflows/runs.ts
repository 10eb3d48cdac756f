import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { tasks, workflowFirings } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { readableSkill } from './access';

/**
 * A workflow's latest firings for the person (the hosted app's "see runs"): what fired it, whether
 * it started, was queued or dropped (and why), and the task it created with that task's status.
 * Only firings for the caller; the skill must be one they may read (404 otherwise).
 */
export async function listWorkflowRuns(db: Db, actor: Actor, skillId: string, limit = 20) {
  const user = requireUser(actor);
  const skill = await readableSkill(db, actor, skillId);
  const rows = await db
    .select({ firing: workflowFirings, taskTitle: tasks.title, taskStatus: tasks.status })
    .from(workflowFirings)
    .leftJoin(tasks, and(eq(tasks.id, workflowFirings.taskId), eq(tasks.userId, user.id)))
    .where(and(eq(workflowFirings.skillId, skill.id), eq(workflowFirings.accountId, actor.accountId), eq(workflowFirings.userId, user.id)))
    .orderBy(desc(workflowFirings.createdAt), desc(workflowFirings.id))
    .limit(limit);
  return {
    ok: true as const,
    runs: rows.map((r) => ({
      id: r.firing.id,
      trigger: r.firing.triggerKind,
      status: r.firing.status,
      reason: r.firing.reason,
      at: r.firing.createdAt.toISOString(),
      task: r.firing.taskId && r.taskTitle ? { id: r.firing.taskId, title: r.taskTitle, status: r.taskStatus } : null,
    })),
  };
}
