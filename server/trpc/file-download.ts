import { sharedDatabase } from '@/db/client';
import { downloadFile } from '@/server/files/service';
import { unauthorized } from '@/server/http/errors';
import { errorResponse, toResponse } from '@/server/http/reply';
import { withApiHeaders } from '@/server/http/response-headers';
import { logger } from '@/server/logger';
import { portalContext } from './context';

/**
 * /files/{fileId}/download on the hosted site: the same files service as the API's download,
 * with the session's person (the kernel's /api never sees the session cookie). Another person's
 * file is 404, as there.
 */
export async function hostedDownload(req: Request, fileId: string): Promise<Response> {
  try {
    const ctx = await portalContext(sharedDatabase().db, req.headers);
    if (!ctx.actor?.user) throw unauthorized('Sign in first');
    return withApiHeaders(await downloadFile(ctx.db, ctx.actor, fileId), ctx.site.secure);
  } catch (e) {
    return withApiHeaders(toResponse(errorResponse(e, logger)), false);
  }
}
