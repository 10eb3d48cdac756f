import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { sharedDatabase } from '@/db/client';
import { errorResponse, toResponse } from '@/server/http/reply';
import { withApiHeaders } from '@/server/http/response-headers';
import { logger } from '@/server/logger';
import { composeRuntime } from '@/server/compose';
import { appRouter } from './app-router';
import { portalContext, type PortalContext } from './context';
import { crossSiteRefusal } from './csrf';

// The hosted app's decisions (approve a cart) start durable work: the same composition as the API.
composeRuntime();

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
