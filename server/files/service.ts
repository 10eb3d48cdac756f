import { and, eq, sql } from 'drizzle-orm';
import mime from 'mime-types';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { driveFiles, type DriveFileRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { AppError, badRequest, forbidden, notFound } from '@/server/http/errors';
import { canReadFile } from './access';
import { fileBytesResponse } from './disposition';
import type { ConfirmBody, UploadBody } from './contracts';
import { sign, verify } from './signing';
import { fileStorage } from './storage';

/** Storage per user: STEWARD_FILE_QUOTA_BYTES, 1 GiB by default. */
export const quotaBytes = () => Number(process.env.STEWARD_FILE_QUOTA_BYTES ?? 1024 ** 3);
const URL_TTL_S = () => Number(process.env.STEWARD_UPLOAD_URL_TTL_SECONDS ?? 900);

export const toPublicFile = (f: DriveFileRow) => ({
  id: f.id,
  name: f.name,
  mimeType: f.mimeType,
  size: f.size,
  status: f.status,
  folder: f.folder,
  createdAt: f.createdAt.toISOString(),
});

async function ownedFile(db: Db, actor: Actor, id: string) {
  const [f] = await db
    .select()
    .from(driveFiles)
    .where(and(eq(driveFiles.id, id), eq(driveFiles.accountId, actor.accountId), eq(driveFiles.userId, requireUser(actor).id)))
    .limit(1);
  if (!f) throw notFound('File');
  return f;
}

/**
 * Creates a pending file and the URL to PUT its bytes to. The quota counts pending files
 * at their declared size, so parallel uploads cannot overshoot it.
 */
export async function createUpload(db: Db, actor: Actor, input: z.infer<typeof UploadBody>, origin: string) {
  const user = requireUser(actor);
  const contentType = input.mimeType ?? (mime.lookup(input.name) || 'application/octet-stream');
  const file = await db.transaction(async (tx) => {
    // One user's uploads are serialized here so the quota check holds under concurrency.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`quota:${user.id}`}))`);
    const [{ used }] = await tx
      .select({ used: sql<number>`coalesce(sum(${driveFiles.size}), 0)::bigint` })
      .from(driveFiles)
      .where(eq(driveFiles.userId, user.id));
    const limit = quotaBytes();
    if (Number(used) + input.size > limit) {
      throw badRequest(`size: storage quota exceeded (${Number(used)} of ${limit} bytes used)`, { quotaBytes: limit, usedBytes: Number(used) }, 'quota_exceeded');
    }
    const [row] = await tx
      .insert(driveFiles)
      .values({ accountId: actor.accountId, userId: user.id, name: input.name, mimeType: contentType, size: input.size, folder: input.folder ?? null, storageKey: 'pending' })
      .returning();
    const [withKey] = await tx
      .update(driveFiles)
      .set({ storageKey: `${actor.accountId}/${row.id}` })
      .where(eq(driveFiles.id, row.id))
      .returning();
    return withKey;
  });
  const storage = fileStorage();
  const url = (await storage.presignedPut(file.storageKey, contentType, URL_TTL_S())) ?? (await localUploadUrl(db, origin, file.id));
  return { ok: true as const, url, fileId: file.id, contentType };
}

async function localUploadUrl(db: Db, origin: string, fileId: string) {
  const expires = Math.floor(Date.now() / 1000) + URL_TTL_S();
  const base = process.env.STEWARD_PUBLIC_URL?.replace(/\/$/, '') ?? origin;
  return `${base}/api/drive-files/${fileId}/content?expires=${expires}&signature=${await sign(db, 'upload', fileId, expires)}`;
}

/** The signed upload URL for one file, served by Steward for the local store. Single use: a ready file refuses more bytes. */
export async function receiveUpload(db: Db, fileId: string, q: { expires: number; signature: string }, contentType: string | null, bytes: Uint8Array) {
  if (!(await verify(db, 'upload', fileId, q.expires, q.signature))) throw forbidden('Invalid upload URL signature');
  if (q.expires < Date.now() / 1000) throw forbidden('This upload URL has expired: create the upload again');
  const [f] = await db.select().from(driveFiles).where(eq(driveFiles.id, fileId)).limit(1);
  if (!f) throw notFound('File');
  if (f.status === 'ready') throw new AppError(409, 'conflict', 'This file is already confirmed; upload URLs are single-use');
  const expected = (f.mimeType ?? '').toLowerCase();
  if (contentType && expected && contentType.split(';')[0].trim().toLowerCase() !== expected) {
    throw badRequest(`Content-Type: must be ${f.mimeType}, the contentType returned with the upload URL`);
  }
  if (bytes.byteLength > f.size) throw badRequest(`body: ${bytes.byteLength} bytes is more than the ${f.size} declared`);
  await fileStorage().write(f.storageKey, bytes);
  return new Response(null, { status: 200 });
}

/** Marks the file ready with its actual size; a size that differs from the stored bytes is a 400. */
export async function confirmUpload(db: Db, actor: Actor, fileId: string, input: z.infer<typeof ConfirmBody>) {
  const f = await ownedFile(db, actor, fileId);
  if (f.status === 'ready') return { ok: true as const, driveFile: toPublicFile(f) };
  const stored = await fileStorage().size(f.storageKey);
  if (stored === null) throw badRequest('No bytes were uploaded yet: PUT the file to the upload URL first');
  if (stored !== input.size) throw badRequest(`size: ${input.size} does not match the ${stored} bytes stored`);
  const [u] = await db
    .update(driveFiles)
    .set({ status: 'ready', size: stored, confirmedAt: new Date() })
    .where(eq(driveFiles.id, f.id))
    .returning();
  return { ok: true as const, driveFile: toPublicFile(u) };
}

/** A file the caller may read (its owner, or a person a task shares it with); anyone else: 404, as for an id that does not exist. */
export async function readableFile(db: Db, actor: Actor, fileId: string) {
  // Reading acts as a user like every other file call: without one it is 401, not a 404 that hides the reason.
  requireUser(actor);
  const [f] = await db
    .select()
    .from(driveFiles)
    .where(and(eq(driveFiles.id, fileId), eq(driveFiles.accountId, actor.accountId)))
    .limit(1);
  if (!f || !(await canReadFile(db, actor, f))) throw notFound('File');
  return f;
}

export async function getFile(db: Db, actor: Actor, fileId: string) {
  return { ok: true as const, driveFile: toPublicFile(await readableFile(db, actor, fileId)) };
}

/** The bytes for the owner and the people a task shares the file with (a redirect to a presigned URL on S3). */
export async function downloadFile(db: Db, actor: Actor, fileId: string): Promise<Response> {
  const f = await readableFile(db, actor, fileId);
  if (f.status !== 'ready') throw new AppError(409, 'conflict', 'The file is not confirmed yet');
  const storage = fileStorage();
  const redirect = await storage.presignedGet(f.storageKey, f.name, 300);
  if (redirect) return new Response(null, { status: 302, headers: { Location: redirect } });
  return fileBytesResponse(f, await storage.read(f.storageKey));
}
