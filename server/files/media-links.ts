import { and, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { driveFiles } from '@/db/schema';
import { notFound } from '@/server/http/errors';
import { publicOrigin } from '@/server/http/public-origin';
import { fileBytesResponse } from './disposition';
import { ownersReadyFiles } from './outbound';
import { sign, verify } from './signing';
import { fileStorage } from './storage';

/*
 * Files on texts (issue 41): an MMS or WhatsApp message carries its files as URLs the provider
 * fetches (Twilio's MediaUrl), so an approved text with files names each file by a link that
 * needs no credential: GET /api/drive-files/{fileId}/content?expires&signature, signed (HMAC,
 * purpose `media`, the same key as upload URLs) for that one file, good for MEDIA_LINK_TTL_S,
 * on the deployment's configured public origin (never the request's Host). A link that is
 * forged, expired or for a file since deleted answers 404 and says nothing more.
 */

/** Twilio fetches the media when it sends; WhatsApp may fetch again on delivery, so a few hours. */
export const MEDIA_LINK_TTL_S = 4 * 3600;
/** Twilio's limit for the media of one message, all together. */
export const MAX_MEDIA_BYTES = 5 * 1024 * 1024;

type Named = { fileId: string; filename: string };

/**
 * Signed links to the owner's files for one message, or why not: every file must still be a ready
 * file of theirs (the person approved the text with these files, not a lesser one).
 */
export async function mediaLinks(db: Db, owner: { accountId: string; userId: string }, files: readonly Named[], now = new Date()): Promise<{ urls: string[] } | { problem: string }> {
  if (!files.length) return { urls: [] };
  const byId = await ownersReadyFiles(db, owner, files);
  if ('problem' in byId) return byId;
  const total = files.reduce((n, f) => n + byId.get(f.fileId)!.size, 0);
  if (total > MAX_MEDIA_BYTES) return { problem: `the files add up to ${total} bytes, more than the ${MAX_MEDIA_BYTES} a text message may carry` };
  const expires = Math.floor(now.getTime() / 1000) + MEDIA_LINK_TTL_S;
  const origin = publicOrigin().origin;
  const urls: string[] = [];
  for (const f of files) {
    const signature = await sign(db, 'media', f.fileId, expires);
    urls.push(`${origin}/api/drive-files/${encodeURIComponent(f.fileId)}/content?expires=${expires}&signature=${signature}`);
  }
  return { urls };
}

/** GET of a media link: the file's bytes, or 404 for anything but a valid, current link to a ready file. */
export async function serveMediaLink(db: Db, fileId: string, q: { expires: number; signature: string }, now = new Date()): Promise<Response> {
  if (q.expires < now.getTime() / 1000 || !(await verify(db, 'media', fileId, q.expires, q.signature))) throw notFound('File');
  const [f] = await db.select().from(driveFiles).where(and(eq(driveFiles.id, fileId), eq(driveFiles.status, 'ready'))).limit(1);
  if (!f) throw notFound('File');
  return fileBytesResponse(f, await fileStorage().read(f.storageKey), { 'Cache-Control': 'private, no-store' });
}
