import { and, desc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { storableJson, storableText } from '@/db/storable';
import { taskActivities, type TaskActivityRow, type TaskRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { invalidFields } from '@/server/http/errors';
import { readableTask } from './access';
import type { ListActivitiesQuery } from './contracts';
import { toPublicActivity } from './present';

/**
 * A page of a task's activity, newest first. The cursor is the id of the last activity
 * returned: the next page compares (created_at, id) with that row in SQL, so microsecond
 * timestamps never lose precision through JavaScript dates.
 */
export async function listActivities(db: Db, actor: Actor, id: string, q: z.infer<typeof ListActivitiesQuery>) {
  const { task } = await readableTask(db, actor, id);
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

export type NewActivity = Pick<TaskActivityRow, 'kind'> &
  Partial<Pick<TaskActivityRow, 'content' | 'platform' | 'deliveryState' | 'runId' | 'toolName' | 'toolCallId' | 'toolInput' | 'toolOutput'>>;

/**
 * Appends activities to a task in the order given. created_at is the wall clock of each insert,
 * not the transaction's start (now()), so what one transaction records (a question, then the
 * tool call that asked it) keeps its order when the conversation is read back.
 */
export async function recordActivities(tx: Tx, task: Pick<TaskRow, 'id' | 'accountId'>, items: NewActivity[]): Promise<void> {
  for (const item of items) {
    // Tool output, messages and the model's words come from outside: stored as Postgres can hold them (db/storable.ts).
    const stored = { ...item, ...(item.content !== undefined ? { content: storableText(item.content) } : {}), toolInput: storableJson(item.toolInput), toolOutput: storableJson(item.toolOutput) };
    await tx.insert(taskActivities).values({ ...stored, taskId: task.id, accountId: task.accountId, createdAt: sql`clock_timestamp()` });
  }
}
