'use client';
import { trpc } from './trpc-client';

export type Attached = { fileId: string; filename: string; mimeType: string; size: number };

/**
 * The files service's three-step upload, from the browser: ask for a signed URL (tRPC), PUT the
 * bytes there with the returned Content-Type, confirm the size. The file id then goes with a task
 * or chat message.
 */
export async function uploadFile(file: File): Promise<Attached> {
  const { url, fileId, contentType } = await trpc.files.upload.mutate({ name: file.name.replace(/[\\/\0]/g, '_').slice(0, 255) || 'file', size: file.size, ...(file.type ? { mimeType: file.type } : {}) });
  const put = await fetch(url, { method: 'PUT', headers: { 'Content-Type': contentType }, body: file });
  if (!put.ok) throw new Error(`The upload of ${file.name} failed (${put.status})`);
  await trpc.files.confirm.mutate({ fileId, size: file.size });
  return { fileId, filename: file.name, mimeType: contentType, size: file.size };
}
