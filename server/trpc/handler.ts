import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { sharedDatabase } from '@/db/client';
import { errorResponse, toResponse } from '@/server/http/kernel';
import { logger } from '@/server/logger';
import { appRouter } from './app-router';
import { portalContext } from './context';

/**
 * CSRF: the session cookie is SameSite=Lax, and mutations must also be JSON posts from this
 * origin (a cross-site form cannot send application/json, and browsers always send Origin on POST).
 */
function crossSiteRefusal(req: Request): Response | null {
  if (req.method !== 'POST') return null;
  const origin = req.headers.get('origin');
  const host = req.headers.get('x-forwarded-host') ?? req.headers.get('host');
  const sameOrigin = !origin || (host !== null && new URL(origin).host === host);
  const json = (req.headers.get('content-type') ?? '').startsWith('application/json');
  if (sameOrigin && json) return null;
  return Response.json({ ok: false, status: 403, error_code: 'forbidden', error: 'Cross-site request refused' }, { status: 403 });
}

/** /api/trpc/*: the hosted app's procedures for the account on this Host. */
export async function trpcHandler(req: Request): Promise<Response> {
  const db = sharedDatabase().db;
  const refused = crossSiteRefusal(req);
  if (refused) return refused;
  let ctx;
  try {
    ctx = await portalContext(db, req.headers);
  } catch (e) {
    return toResponse(errorResponse(e, logger));
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: () => ctx,
    onError: ({ error }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error }, 'trpc: unexpected failure');
    },
  });
}
