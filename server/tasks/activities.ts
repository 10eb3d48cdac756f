import { and, desc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { taskActivities } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { invalidFields } from '@/server/http/errors';
import { ownTask } from './access';
import type { ListActivitiesQuery } from './contracts';
import { toPublicActivity } from './present';

/**
 * A page of a task's activity, newest first. The cursor is the id of the last activity
 * returned: the next page compares (created_at, id) with that row in SQL, so microsecond
 * timestamps never lose precision through JavaScript dates.
 */
export async function listActivities(db: Db, actor: Actor, id: string, q: z.infer<typeof ListActivitiesQuery>) {
  const { task } = await ownTask(db, actor, id);
  const filters = [eq(taskActivities.taskId, task.id)];
  if (q.before) {
    const [anchor] = await db
      .select({ id: taskActivities.id })
      .from(taskActivities)
      .where(and(eq(taskActivities.taskId, task.id), eq(taskActivities.id, q.before)));
    if (!anchor) throw invalidFields([{ field: 'before', problem: 'is not a cursor of this task' }]);
    filters.push(
      sql`(${taskActivities.createdAt}, ${taskActivities.id}) < (SELECT a.created_at, a.id FROM task_activities a WHERE a.id = ${q.before})`,
    );
  }
  const rows = await db
    .select()
    .from(taskActivities)
    .where(and(...filters))
    .orderBy(desc(taskActivities.createdAt), desc(taskActivities.id))
    .limit(q.limit + 1);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  return { ok: true as const, activities: page.map(toPublicActivity), hasMore, cursor: hasMore ? page[page.length - 1].id : null };
}
