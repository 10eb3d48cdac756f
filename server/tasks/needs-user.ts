import { and, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { taskActivities, tasks, users, type TaskStatus } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { pendingCartColumn } from '@/db/queries/carts';
import { toPublicTask } from './present';

/*
 * What of a user's tasks waits on them (the hosted app's home, "what needs me"): a question the
 * assistant asked (awaiting_user_input), a task it proposes (pending_user_approval), and tasks
 * that failed, ran out of credits or are held. Read queries only: every decision on them goes
 * through the usual services (process, approve, decline...).
 */

/** Statuses in which a task stopped and waits for its owner to act. */
export const STUCK_STATUSES = ['error', 'failed_access', 'credits_blocked', 'on_hold', 'paused'] as const satisfies readonly TaskStatus[];
// The partial index tasks_needs_user (db/schema/tasks.ts) spells this list out: change both together.
const WAITING: readonly TaskStatus[] = ['awaiting_user_input', ...STUCK_STATUSES];

/**
 * A task also rests in awaiting_user_input while its staged actions wait for approval or while a
 * browser handoff is open: those are listed once, as the cart and the handoff (issue 45), not a
 * second time as a question nobody asked. Nor once the person approved the cart: while it is
 * being handed over, waits out its undo delay or is being sent, the task waits on the send, not
 * on its owner.
 */
// Spelled out: the outer columns must stay qualified inside the subqueries.
const waitsOnOwnItem = sql`("tasks"."status" = 'awaiting_user_input' AND (
  EXISTS (SELECT 1 FROM carts c WHERE c.task_id = "tasks"."id" AND c.status IN ('submitted', 'pending_approval', 'time_boxed', 'approved', 'executing'))
  OR EXISTS (SELECT 1 FROM handoffs h WHERE h.task_id = "tasks"."id" AND h.closed_at IS NULL)))`;

const needsUser = (userId: string, accountId: string): SQL =>
  and(
    eq(tasks.userId, userId),
    eq(tasks.accountId, accountId),
    or(inArray(tasks.status, [...WAITING]), eq(tasks.proposalStatus, 'pending_user_approval')),
    or(eq(tasks.proposalStatus, 'pending_user_approval'), sql`NOT ${waitsOnOwnItem}`),
  )!;

/** How many of the user's tasks wait on them. */
export async function countTasksNeedingUser(db: Db, actor: Actor): Promise<number> {
  const user = requireUser(actor);
  const [{ n }] = await db.select({ n: sql<number>`count(*)::int` }).from(tasks).where(needsUser(user.id, actor.accountId));
  return Number(n);
}

/**
 * The newest `limit` of them (by when they last changed: a question asked today on a task of
 * last month comes first), each with the assistant's last words to the user (the question, for
 * awaiting_user_input) and its pending cart.
 */
export async function tasksNeedingUser(db: Db, actor: Actor, limit: number) {
  const user = requireUser(actor);
  const rows = await db
    .select({ task: tasks, ownerEmail: users.email, pendingCart: pendingCartColumn })
    .from(tasks)
    .innerJoin(users, eq(users.id, tasks.userId))
    .where(needsUser(user.id, actor.accountId))
    .orderBy(desc(tasks.updatedAt), desc(tasks.id))
    .limit(limit);
  const asking = rows.filter((r) => r.task.status === 'awaiting_user_input').map((r) => r.task.id);
  const said = new Map<string, string>();
  if (asking.length) {
    const last = await db
      .selectDistinctOn([taskActivities.taskId], { taskId: taskActivities.taskId, content: taskActivities.content })
      .from(taskActivities)
      .where(and(inArray(taskActivities.taskId, asking), eq(taskActivities.kind, 'assistant')))
      .orderBy(taskActivities.taskId, desc(taskActivities.createdAt), desc(taskActivities.id));
    for (const l of last) said.set(l.taskId, l.content);
  }
  return rows.map((r) => ({ task: toPublicTask(r.task, r.ownerEmail, r.pendingCart), question: said.get(r.task.id) ?? null }));
}
