import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { driveFiles, type DriveFileRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { canReadFile } from './access';
import { effectiveType, formatOf } from './extract';
import { fileStorage } from './storage';

/*
 * Files attached to a conversation (a task's messages, a chat's), as a run shows them to the
 * model: each named with its type, size and id so the model can read it (read_file), and images
 * shown as images to a tier whose model accepts them. Only files the run's owner may read are
 * named or shown; a file they cannot read (deleted since, or never theirs) is left out.
 */

export type AttachedFile = { id: string; name: string; mimeType: string; size: number; image: boolean };
export type ShownImage = { fileId: string; mediaType: string; bytes: Uint8Array };

/** Images larger than this are named, not shown (the model APIs refuse large inline images). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** At most this many images a model call, the newest: older ones stay named. */
export const MAX_IMAGES = 5;

const describe = (f: DriveFileRow): AttachedFile => {
  const type = effectiveType(f.mimeType, f.name);
  return { id: f.id, name: f.name, mimeType: type, size: f.size, image: formatOf(type) === 'image' };
};

/** The readable, ready files among `ids`, by id. */
export async function attachedFiles(db: Db, actor: Actor, ids: readonly string[]): Promise<Map<string, AttachedFile>> {
  const wanted = [...new Set(ids)];
  const out = new Map<string, AttachedFile>();
  if (!wanted.length) return out;
  const rows = await db
    .select()
    .from(driveFiles)
    .where(and(inArray(driveFiles.id, wanted), eq(driveFiles.accountId, actor.accountId), eq(driveFiles.status, 'ready')));
  for (const row of rows) if (await canReadFile(db, actor, row)) out.set(row.id, describe(row));
  return out;
}

/** One line naming the files, for the message they came with. */
export function attachedLine(ids: readonly string[], files: ReadonlyMap<string, AttachedFile>): string {
  const named = ids.map((id) => files.get(id)).filter((f): f is AttachedFile => Boolean(f));
  if (!named.length) return '';
  const each = named.map((f) => `"${f.name.replace(/"/g, "'")}" (${f.mimeType}, ${f.size} bytes, fileId ${f.id})`);
  return `[Attached files: ${each.join('; ')}. Read their text with read_file.]`;
}

/**
 * Which model tiers see images: STEWARD_MODEL_VISION_TIERS, a comma-separated list of tiers
 * (`low,medium,high,ultra`) or `all`; unset: none (a text-only model would refuse the request).
 */
export function tierSeesImages(tier: string, setting = process.env.STEWARD_MODEL_VISION_TIERS): boolean {
  const tiers = (setting ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  return tiers.includes('all') || tiers.includes(tier);
}

/** The bytes of the newest images among `ids` (the last ones listed), within the limits. */
export async function imagesToShow(ids: readonly string[], files: ReadonlyMap<string, AttachedFile>, db: Db): Promise<ShownImage[]> {
  const images = [...new Set(ids)]
    .map((id) => files.get(id))
    .filter((f): f is AttachedFile => Boolean(f?.image && f.size <= MAX_IMAGE_BYTES))
    .slice(-MAX_IMAGES);
  if (!images.length) return [];
  const rows = await db.select({ id: driveFiles.id, storageKey: driveFiles.storageKey }).from(driveFiles).where(inArray(driveFiles.id, images.map((f) => f.id)));
  const keys = new Map(rows.map((r) => [r.id, r.storageKey]));
  const shown: ShownImage[] = [];
  for (const f of images) {
    const key = keys.get(f.id);
    if (!key) continue;
    shown.push({ fileId: f.id, mediaType: f.mimeType, bytes: new Uint8Array(await fileStorage().read(key)) });
  }
  return shown;
}

/** What a conversation shows of the files its messages carry: each named, images shown when the tier sees them. */
export async function conversationFiles(db: Db, actor: Actor, ids: readonly string[], seesImages: boolean) {
  const files = await attachedFiles(db, actor, ids);
  const images = new Map((seesImages ? await imagesToShow(ids, files, db) : []).map((i) => [i.fileId, i]));
  return { files, images };
}
