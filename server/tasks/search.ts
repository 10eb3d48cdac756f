import { and, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { tasks, users } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { pageWindow } from '@/server/http/pagination';
import { pendingCartColumn } from '@/db/queries/carts';
import type { ListTasksQuery } from './contracts';
import { toPublicTask } from './present';

/** A LIKE pattern matching `text` anywhere, its wildcards taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The user's own tasks whose title or description contains `search` (case-insensitive), with
 * GET /tasks' filters and page, newest first, in GET /tasks' shape. The hosted task list's search
 * box; the API's list has no search parameter (spec document 2 lists none).
 */
export async function searchOwnTasks(db: Db, actor: Actor, q: z.infer<typeof ListTasksQuery> & { search: string }) {
  const user = requireUser(actor);
  const { limit, offset } = pageWindow(q);
  const pattern = containing(q.search);
  const filters: SQL[] = [
    eq(tasks.accountId, actor.accountId),
    eq(tasks.userId, user.id),
    or(sql`lower(${tasks.title}) LIKE ${pattern}`, sql`lower(${tasks.description}) LIKE ${pattern}`)!,
  ];
  if (q.status) filters.push(eq(tasks.status, q.status));
  if (q.assistant) filters.push(eq(tasks.assistantId, q.assistant));
  const rows = await db
    .select({ task: tasks, ownerEmail: users.email, pendingCart: pendingCartColumn })
    .from(tasks)
    .innerJoin(users, eq(users.id, tasks.userId))
    .where(and(...filters))
    .orderBy(desc(tasks.createdAt), desc(tasks.id))
    .limit(limit)
    .offset(offset);
  return { ok: true as const, tasks: rows.map((r) => toPublicTask(r.task, r.ownerEmail, r.pendingCart)), page: q.page, perPage: q.perPage };
}
