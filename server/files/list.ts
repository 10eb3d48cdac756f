import { and, count, desc, eq, ilike } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { driveFiles } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { pageInfo, pageWindow, type PageQuery } from '@/server/http/pagination';
import { toPublicFile } from './service';

/**
 * The person's own files (the hosted app's Files page), newest first, uploaded ones only, with an
 * optional name filter. A user sees their own files and no one else's.
 */
export async function listOwnFiles(db: Db, actor: Actor, q: PageQuery & { search?: string }) {
  const user = requireUser(actor);
  const where = and(eq(driveFiles.accountId, actor.accountId), eq(driveFiles.userId, user.id), eq(driveFiles.status, 'ready'), q.search ? ilike(driveFiles.name, `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined);
  const { limit, offset } = pageWindow(q);
  const [rows, [{ n }]] = await Promise.all([
    db.select().from(driveFiles).where(where).orderBy(desc(driveFiles.createdAt), desc(driveFiles.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(driveFiles).where(where),
  ]);
  return { ok: true as const, files: rows.map(toPublicFile), ...pageInfo(q, n) };
}
