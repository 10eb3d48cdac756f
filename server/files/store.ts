import { eq, sql } from 'drizzle-orm';
import mime from 'mime-types';
import type { Tx } from '@/db/client';
import { driveFiles, type DriveFileRow } from '@/db/schema';
import { quotaBytes } from './service';
import { fileStorage } from './storage';

/*
 * Bytes that arrive with a message (a mail's attachments) become files of the user they are for,
 * in one step: the bytes written to the store, then the row, ready, counted against the user's
 * quota like an upload (the same per-user lock, so concurrent arrivals cannot overshoot it).
 * A file that does not fit is not stored; the caller says so where the message is shown.
 */

export type IncomingFile = { name: string; mimeType?: string | null; bytes: Uint8Array };

export type Stored = { file: DriveFileRow } | { refused: 'quota_exceeded' | 'empty'; name: string };

export async function storeIncomingFile(tx: Tx, owner: { accountId: string; userId: string }, incoming: IncomingFile): Promise<Stored> {
  const name = incoming.name.trim().slice(0, 255) || 'attachment';
  if (!incoming.bytes.byteLength) return { refused: 'empty', name };
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`quota:${owner.userId}`}))`);
  const [{ used }] = await tx
    .select({ used: sql<number>`coalesce(sum(${driveFiles.size}), 0)::bigint` })
    .from(driveFiles)
    .where(eq(driveFiles.userId, owner.userId));
  if (Number(used) + incoming.bytes.byteLength > quotaBytes()) return { refused: 'quota_exceeded', name };
  const mimeType = incoming.mimeType || mime.lookup(name) || 'application/octet-stream';
  const [row] = await tx
    .insert(driveFiles)
    .values({ accountId: owner.accountId, userId: owner.userId, name, mimeType, size: incoming.bytes.byteLength, folder: null, storageKey: 'pending', status: 'ready', confirmedAt: new Date() })
    .returning();
  const storageKey = `${owner.accountId}/${row.id}`;
  // The bytes before the key: a row that names them exists only once they are stored.
  await fileStorage().write(storageKey, incoming.bytes);
  const [file] = await tx.update(driveFiles).set({ storageKey }).where(eq(driveFiles.id, row.id)).returning();
  return { file };
}
