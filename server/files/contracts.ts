import { z } from 'zod';

export const UploadBody = z.object({
  name: z.string().trim().min(1, 'is required').max(255).refine((n) => !/[\\/\0]/.test(n), 'must not contain slashes'),
  size: z.number().int('must be a whole number of bytes').min(0),
  mimeType: z.string().trim().max(255).regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as text/plain').optional(),
  folder: z.string().min(1).max(100).nullable().optional(),
});
export const ConfirmBody = z.object({ size: z.number().int('must be a whole number of bytes').min(0) });
export const FileParams = z.object({ fileId: z.string().min(1) });
export const ContentQuery = z.object({ expires: z.coerce.number().int(), signature: z.string().regex(/^[0-9a-f]{64}$/, 'malformed') });

export const DriveFile = z.object({
  id: z.string(),
  name: z.string(),
  mimeType: z.string().nullable(),
  size: z.number().int(),
  status: z.enum(['pending', 'ready']),
  folder: z.string().nullable(),
  createdAt: z.string(),
});
export const UploadResponse = z.object({ ok: z.literal(true), url: z.string(), fileId: z.string(), contentType: z.string() });
export const DriveFileEnvelope = z.object({ ok: z.literal(true), driveFile: DriveFile });
