import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { driveFiles, type DriveFileRow } from '@/db/schema';
import { fileStorage } from './storage';

/*
 * The bytes of the files an approved email carries, as mail attachments. The dispatch names
 * them by id (staged by send_email from the user's files, shown with name, type and size); at
 * send time each must still be a ready file of the cart's owner. A file deleted since, or one
 * not theirs, sends nothing: the person approved this email with these files, not a lesser one.
 */

/**
 * The approved files, each still a ready file of the cart's owner, by id; or which ones are gone
 * (the person approved the message with these files, not a lesser one). Mail attachments and a
 * text's media links (media-links.ts) both start here.
 */
export async function ownersReadyFiles(
  db: Db,
  owner: { accountId: string; userId: string },
  files: ReadonlyArray<{ fileId: string; filename: string }>,
): Promise<Map<string, DriveFileRow> | { problem: string }> {
  const rows = await db
    .select()
    .from(driveFiles)
    .where(and(inArray(driveFiles.id, files.map((f) => f.fileId)), eq(driveFiles.accountId, owner.accountId), eq(driveFiles.userId, owner.userId), eq(driveFiles.status, 'ready')));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = files.filter((f) => !byId.has(f.fileId));
  if (missing.length) return { problem: `the attached file ${missing.map((f) => `"${f.filename}"`).join(', ')} is no longer in the user's files` };
  return byId;
}

export type MailAttachment = { filename: string; contentType: string; content: Buffer };

/** Together at most this much: most mail servers refuse larger messages. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

export async function mailAttachments(
  db: Db,
  owner: { accountId: string; userId: string },
  files: ReadonlyArray<{ fileId: string; filename: string; mimeType: string }>,
): Promise<{ attachments: MailAttachment[] } | { problem: string }> {
  if (!files.length) return { attachments: [] };
  const byId = await ownersReadyFiles(db, owner, files);
  if ('problem' in byId) return byId;
  const total = files.reduce((n, f) => n + byId.get(f.fileId)!.size, 0);
  if (total > MAX_ATTACHMENT_BYTES) return { problem: `the attachments add up to ${total} bytes, more than the ${MAX_ATTACHMENT_BYTES} an email may carry` };
  const attachments: MailAttachment[] = [];
  for (const f of files) {
    const row = byId.get(f.fileId)!;
    attachments.push({ filename: f.filename, contentType: f.mimeType, content: await fileStorage().read(row.storageKey) });
  }
  return { attachments };
}
