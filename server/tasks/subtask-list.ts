import { asc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { tasks } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { readableTask } from './access';
import { toPublicTask } from './present';

/** The subtasks of a task the caller may read, oldest first (the task detail page; the API lists none). */
export async function listSubtasks(db: Db, actor: Actor, taskId: string) {
  const { task, ownerEmail } = await readableTask(db, actor, taskId);
  const rows = await db.select().from(tasks).where(eq(tasks.parentTaskId, task.id)).orderBy(asc(tasks.createdAt), asc(tasks.id)).limit(100);
  return { ok: true as const, subtasks: rows.map((t) => toPublicTask(t, ownerEmail)) };
}
