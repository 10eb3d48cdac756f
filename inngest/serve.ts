import { serve } from 'inngest/edge';
import { countRefusedCalls } from '@/server/executor/serve-guard';
import { inngestServeUrl } from '@/server/executor/config';
import { localServe } from '@/server/executor/local-serve';
import type { LocalRequest } from '@/server/executor/local-transport';
import type { RateLimits } from '@/server/http/rate-limit';
import { releasedBetweenRuns } from './async-context';
import { inngest } from './client';
import { functions } from './functions';
import { soakFunction } from './soak-function';

/**
 * The serve endpoint of /api/inngest as one Web handler, for both doors to it: the kernel's
 * node:http server mounts it (npm start), and app/api/inngest/route.ts exports it (STEWARD_HTTP=next,
 * npm run dev's Next.js). The URL registered for the functions is pinned (never the request's Host),
 * and a PUT must be signed like every other call: an anonymous PUT cannot re-register them anywhere.
 * Refused calls count as failed authentications (server/executor/serve-guard.ts). Between calls the
 * SDK's async context is turned off (async-context.ts).
 *
 * Import it only once the executor's keys and ingress URL are in the environment (scripts/start.ts
 * sets them): the Inngest client reads them when it loads.
 */
export function inngestServeHandler(limits: () => RateLimits): (req: Request, clientIp?: string) => Promise<Response> {
  return countRefusedCalls(releasedBetweenRuns(serve(serveOptions())), limits);
}

/**
 * The same endpoint for the calls this process makes to itself (the built-in executor's, through
 * server/executor/local-transport.ts): the SDK reads the request as it was handed to `fetch`
 * (server/executor/local-serve.ts), with the same options, checks and counting.
 */
export function inngestLocalServeHandler(limits: () => RateLimits): (req: LocalRequest, clientIp?: string) => Promise<Response> {
  return countRefusedCalls(releasedBetweenRuns(localServe(serveOptions())), limits);
}

function serveOptions() {
  const serveUrl = new URL(inngestServeUrl());
  // npm run soak's test function joins only when STEWARD_SOAK=1: production never registers it.
  const served = process.env.STEWARD_SOAK === '1' ? [...functions, soakFunction] : functions;
  return { client: inngest, functions: served, serveOrigin: serveUrl.origin, servePath: serveUrl.pathname, enableUnauthedSync: false };
}
