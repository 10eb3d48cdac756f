import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { sharedDatabase } from '@/db/client';
import { errorResponse, toResponse } from '@/server/http/reply';
import { withApiHeaders } from '@/server/http/response-headers';
import { logger } from '@/server/logger';
// The hosted app's decisions (approve a cart) start durable work: the same composition as the API.
import '@/server/runtime';
import { appRouter } from './app-router';
import { portalContext, type PortalContext } from './context';

/**
 * CSRF: the session cookie is SameSite=Lax, and mutations must also be JSON posts from the hosted
 * app's own origin (a cross-site form cannot send application/json, and browsers always send
 * Origin on POST). The origin compared is the configured one, not the Host header; an Origin that
 * is not a URL (`null` from a sandboxed frame or a redirect chain) is cross-site.
 */
function crossSiteRefusal(req: Request, site: PortalContext['site']): Response | null {
  if (req.method !== 'POST') return null;
  const origin = req.headers.get('origin');
  const sameOrigin = origin === null || origin === site.origin;
  const json = (req.headers.get('content-type') ?? '').startsWith('application/json');
  if (sameOrigin && json) return null;
  return Response.json({ ok: false, status: 403, error_code: 'forbidden', error: 'Cross-site request refused' }, { status: 403 });
}

/** /api/trpc/*: the hosted app's procedures for the account on this host. */
export async function trpcHandler(req: Request): Promise<Response> {
  const db = sharedDatabase().db;
  let ctx: PortalContext;
  try {
    ctx = await portalContext(db, req.headers);
  } catch (e) {
    return withApiHeaders(toResponse(errorResponse(e, logger)), false);
  }
  const refused = crossSiteRefusal(req, ctx.site);
  if (refused) return withApiHeaders(refused, ctx.site.secure);
  const res = await fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: () => ctx,
    onError: ({ error }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error }, 'trpc: unexpected failure');
    },
  });
  // Answers carry the signed-in person's data and minted secrets (a SCIM token): never cached.
  return withApiHeaders(res, ctx.site.secure);
}
