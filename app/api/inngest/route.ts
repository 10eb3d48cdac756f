import { serve } from 'inngest/next';
import { sharedDatabase } from '@/db/client';
import { inngest } from '@/inngest/client';
import { functions } from '@/inngest/functions';
import { inngestServeUrl } from '@/server/executor/config';
import { guardServeEndpoint } from '@/server/executor/serve-guard';
import { RateLimits } from '@/server/http/rate-limit';

// The URL registered for the functions is pinned (never the request's Host), and a PUT must be
// signed like every other call: an anonymous PUT cannot re-register the functions anywhere.
const serveUrl = new URL(inngestServeUrl());
const handlers = serve({ client: inngest, functions, serveOrigin: serveUrl.origin, servePath: serveUrl.pathname, enableUnauthedSync: false });

let limits: RateLimits | undefined;
export const { GET, POST, PUT } = guardServeEndpoint(handlers, () => (limits ??= new RateLimits(sharedDatabase().pool)));
export const dynamic = 'force-dynamic';
