import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { tasks, users, type TaskRow } from '@/db/schema';
import { administeredOrganization, isAccountWide, type Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { notFound } from '@/server/http/errors';
import { follows } from './followers';

/*
 * Which tasks a caller reaches (spec document 2, Authentication): the owner reaches their own;
 * a follower of the task (a user of the account holding one of its follower addresses as a
 * verified email, followers.ts) reads it; an account key without X-User-Email reads and deletes
 * any task of the account; an organization admin (or key) may delete its members' tasks. Every
 * other write is the owner's. Anything else is 404, never 403.
 */

export type OwnedTask = { task: TaskRow; ownerEmail: string; ownerOrganizationId: string | null };

async function findTask(tx: Tx, actor: Actor, id: string, forUpdate: boolean): Promise<OwnedTask | null> {
  const q = tx
    .select({ task: tasks, ownerEmail: users.email, ownerOrganizationId: users.organizationId })
    .from(tasks)
    .innerJoin(users, eq(users.id, tasks.userId))
    .where(and(eq(tasks.id, id), eq(tasks.accountId, actor.accountId)))
    .limit(1);
  const [row] = forUpdate ? await q.for('update', { of: tasks }) : await q;
  return row ?? null;
}

/** The caller's own task (owner-only moves). `forUpdate` locks it for the rest of the transaction. */
export async function ownTask(tx: Tx, actor: Actor, id: string, forUpdate = false): Promise<OwnedTask> {
  const user = requireUser(actor);
  const row = await findTask(tx, actor, id, forUpdate);
  if (!row || row.task.userId !== user.id) throw notFound('Task');
  return row;
}

/** Read: the owner, a follower, or an account-wide key. */
export async function readableTask(tx: Tx, actor: Actor, id: string): Promise<OwnedTask> {
  if (actor.user) {
    const row = await findTask(tx, actor, id, false);
    if (!row || !(await follows(tx, row.task, actor.user.id))) throw notFound('Task');
    return row;
  }
  requireAccountWide(actor);
  const row = await findTask(tx, actor, id, false);
  if (!row) throw notFound('Task');
  return row;
}

/** Delete: the owner, an account-wide key, or an administrator of the owner's organization. */
export async function deletableTask(tx: Tx, actor: Actor, id: string): Promise<OwnedTask> {
  const row = await findTask(tx, actor, id, true);
  if (!row) throw notFound('Task');
  if (isAccountWide(actor) || row.task.userId === actor.user?.id) return row;
  const org = administeredOrganization(actor);
  if (org && org === row.ownerOrganizationId) return row;
  if (!actor.user && !org) requireUser(actor);
  throw notFound('Task');
}

/** Endpoints of level `any` answer a caller that is neither a user nor account-wide as the user level would (401). */
export function requireAccountWide(actor: Actor): void {
  if (!isAccountWide(actor)) requireUser(actor);
}
