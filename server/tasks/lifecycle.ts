import type { Db } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { ownTask } from './access';
import { applyChange } from './move';
import { discardPendingCarts } from './cart-discard';
import { toPublicTask } from './present';
import { cancelOpenRuns, queueRun } from './runs';
import { plan } from './transitions';
import { pendingCartSummary } from '@/db/queries/carts';

/*
 * The owner's moves on a task besides PUT: stop, mark done, mark not done, feedback. Each
 * goes through the transition table; another user's task is 404 (access.ts).
 */

/** Any running or open task → on_hold; the current run ends. */
export async function stopTask(db: Db, actor: Actor, id: string) {
  return db.transaction(async (tx) => {
    const { task, ownerEmail } = await ownTask(tx, actor, id, true);
    const row = await applyChange(tx, task, plan(task, 'stop', 'on_hold'), 'stop');
    await cancelOpenRuns(tx, task.id);
    return { ok: true as const, task: toPublicTask(row, ownerEmail, await pendingCartSummary(tx, row.id)) };
  });
}

/** Any task → done_user_marked; the assistant stops and the carts it has not released are discarded. */
export async function markDone(db: Db, actor: Actor, id: string) {
  return db.transaction(async (tx) => {
    const { task, ownerEmail } = await ownTask(tx, actor, id, true);
    const row = await applyChange(tx, task, plan(task, 'mark_done', 'done_user_marked'), 'mark_done');
    await cancelOpenRuns(tx, task.id);
    await discardPendingCarts(tx, task.id, 'The task was marked done');
    return { ok: true as const, task: toPublicTask(row, ownerEmail, await pendingCartSummary(tx, row.id)) };
  });
}

/** completed or done_user_marked → pending; the assistant wakes (a queued run) to ask how to proceed. */
export async function markNotDone(db: Db, actor: Actor, id: string) {
  return db.transaction(async (tx) => {
    const { task, ownerEmail } = await ownTask(tx, actor, id, true);
    const row = await applyChange(tx, task, plan(task, 'mark_not_done', 'pending'), 'mark_not_done');
    await queueRun(tx, row, 'wake');
    return { ok: true as const, task: toPublicTask(row, ownerEmail, await pendingCartSummary(tx, row.id)) };
  });
}
