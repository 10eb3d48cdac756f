import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { carts, tasks } from '@/db/schema';
import { ownerActor } from '@/server/agent/runtime/owner-actor';
import { countTasksNeedingUser, tasksNeedingUser } from '@/server/tasks/needs-user';
import { useCartWorld } from '../approvals/cart-world';

/*
 * "What needs me" lists each thing once (issue 45): a task resting in awaiting_user_input because
 * of its own staged email is that email's approval, not also a question; nor, once the person
 * approved it, while the email waits out its undo delay or is being sent. When it is sent, the
 * task's next words to its owner are theirs to answer again.
 */
const { db, setup, taskRow, pendingCart } = useCartWorld();

describe('tasks needing their owner', () => {
  it('leaves out a task whose email waits for approval or is on its way, and lists it again once the email is sent', async () => {
    const { a } = await setup();
    const { cartId, taskId, runId } = await pendingCart(a);
    // Where the run leaves a task whose cart waits: on its owner.
    await db().update(tasks).set({ status: 'awaiting_user_input', alarmStatus: 'set', alarmWakeAt: new Date(Date.now() + 86_400_000) }).where(eq(tasks.id, taskId));
    const actor = (await ownerActor(db(), await taskRow(taskId), runId))!;
    const listed = async () => ({ count: await countTasksNeedingUser(db(), actor), ids: (await tasksNeedingUser(db(), actor, 50)).map((t) => t.task.id) });

    for (const status of ['pending_approval', 'submitted', 'approved', 'executing'] as const) {
      await db().update(carts).set({ status }).where(eq(carts.id, cartId));
      expect(await listed(), `cart ${status}`).toEqual({ count: 0, ids: [] });
    }
    await db().update(carts).set({ status: 'executed' }).where(eq(carts.id, cartId));
    expect(await listed()).toEqual({ count: 1, ids: [taskId] });
  });
});
