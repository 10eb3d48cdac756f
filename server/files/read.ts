import type { Db } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { AppError } from '@/server/http/errors';
import { effectiveType, extractText, type FileFormat } from './extract';
import { readableFile } from './service';
import { fileStorage } from './storage';

/*
 * read_file (spec 5): a file's extracted text, in pages of bounded size, for a caller who may read
 * the file (canReadFile: its owner, or a person a task shares it with). Anyone else is told the
 * file was not found, exactly as for an id that does not exist: the refusal names nothing.
 */

/** About 2,000 tokens a page: a page fits a model call beside the rest of the context. */
export const PAGE_CHARS = 8_000;
/** Larger files are not extracted (a model could not read them in any useful number of pages). */
export const MAX_EXTRACT_BYTES = 25 * 1024 * 1024;

export type FilePage = {
  fileId: string;
  name: string;
  mimeType: string;
  format: FileFormat;
  page: number;
  pageCount: number;
  text: string;
};

/** Pages cut at a line or word break near the size, so no word is split between two pages. */
export function paginate(text: string, size = PAGE_CHARS): string[] {
  if (!text) return [''];
  const pages: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const window = rest.slice(0, size);
    const cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    const at = cut > size / 2 ? cut + 1 : size;
    pages.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  pages.push(rest);
  return pages;
}

/**
 * Extracted pages by stored object: confirmed files never change (their bytes are written once),
 * so a run reading page after page extracts once. Small and per process.
 */
const cache = new Map<string, { format: FileFormat; pages: string[] }>();
const CACHED = 16;

async function pagesOf(file: { storageKey: string; size: number; mimeType: string | null; name: string }) {
  const hit = cache.get(file.storageKey);
  if (hit) return hit;
  if (file.size > MAX_EXTRACT_BYTES) {
    throw new AppError(400, 'file_too_large', `The file is ${file.size} bytes; files over ${MAX_EXTRACT_BYTES} bytes are not read`);
  }
  const extracted = await extractText(await fileStorage().read(file.storageKey), file.mimeType, file.name);
  if (extracted.kind === 'image') {
    throw new AppError(400, 'file_is_image', 'The file is an image and has no text: it is shown to you where it was attached when your model accepts images');
  }
  if (extracted.kind === 'unsupported') throw new AppError(400, 'file_unreadable', extracted.reason);
  const entry = { format: extracted.format, pages: paginate(extracted.text) };
  cache.set(file.storageKey, entry);
  if (cache.size > CACHED) cache.delete(cache.keys().next().value!);
  return entry;
}

/** One page (from 1) of the file's text; a page past the end is a 400 naming the page count. */
export async function readFilePage(db: Db, actor: Actor, fileId: string, page = 1): Promise<FilePage> {
  const file = await readableFile(db, actor, fileId);
  if (file.status !== 'ready') throw new AppError(409, 'file_not_ready', 'The file is still being uploaded');
  const { format, pages } = await pagesOf(file);
  if (page > pages.length) throw new AppError(400, 'bad_request', `page: the file has ${pages.length} page(s)`, { pageCount: pages.length });
  return { fileId: file.id, name: file.name, mimeType: effectiveType(file.mimeType, file.name), format, page, pageCount: pages.length, text: pages[page - 1] };
}
