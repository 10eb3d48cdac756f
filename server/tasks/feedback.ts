import { eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { tasks } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { readableTask } from './access';
import type { FeedbackBody } from './contracts';

/*
 * POST /tasks/{taskId}/feedback (spec 2: "only followers of the task may leave it"): the owner (a
 * follower always) and every follower, each their own value: the owner's is the task's `feedback`,
 * a follower's is kept by user id beside it. Anyone else: 404, as for the task itself.
 */
export async function leaveFeedback(db: Db, actor: Actor, id: string, input: z.infer<typeof FeedbackBody>) {
  const user = requireUser(actor);
  return db.transaction(async (tx) => {
    const { task } = await readableTask(tx, actor, id);
    if (task.userId === user.id) await tx.update(tasks).set({ feedback: input.status }).where(eq(tasks.id, task.id));
    else {
      const followerFeedback = input.status
        ? sql`${tasks.followerFeedback} || jsonb_build_object(${user.id}::text, ${input.status}::text)`
        : sql`${tasks.followerFeedback} - ${user.id}::text`;
      await tx.update(tasks).set({ followerFeedback }).where(eq(tasks.id, task.id));
    }
    return {
      ok: true as const,
      feedback: { success: true, taskId: task.id, status: input.status, message: input.status ? 'Feedback recorded' : 'Feedback cleared' },
    };
  });
}
