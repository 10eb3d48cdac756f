import { and, eq, inArray } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { driveFiles, type ChatFile } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { canReadFile } from '@/server/files/access';

/**
 * The files a message names that its author can read (their own, or shared with them through a
 * task), ready and in their account; others are left out, never attached (spec: "attached when
 * the user can read them"). The name and type default to the stored file's.
 */
export async function readableChatFiles(tx: Tx, actor: Actor, files: { fileId: string; filename?: string; mimeType?: string }[] | undefined): Promise<ChatFile[]> {
  const wanted = [...new Map((files ?? []).map((f) => [f.fileId, f])).values()];
  if (!wanted.length) return [];
  const rows = await tx
    .select()
    .from(driveFiles)
    .where(and(inArray(driveFiles.id, wanted.map((f) => f.fileId)), eq(driveFiles.accountId, actor.accountId), eq(driveFiles.status, 'ready')));
  const readable = new Map<string, (typeof rows)[number]>();
  for (const row of rows) if (await canReadFile(tx as Db, actor, row)) readable.set(row.id, row);
  return wanted
    .filter((f) => readable.has(f.fileId))
    .map((f) => ({ fileId: f.fileId, filename: f.filename ?? readable.get(f.fileId)!.name, mimeType: f.mimeType ?? readable.get(f.fileId)!.mimeType }));
}
