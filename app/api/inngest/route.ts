import { sharedDatabase } from '@/db/client';
import { inngestServeHandler } from '@/inngest/serve';
import { RateLimits } from '@/server/http/rate-limit';

// The same serve endpoint the kernel's server mounts (inngest/serve.ts). Here, behind Steward's
// front, the client address is the one the front decided (X-Forwarded-For).
let limits: RateLimits | undefined;
const handler = inngestServeHandler(() => (limits ??= new RateLimits(sharedDatabase().pool)));
const serveFunctions = (req: Request) => handler(req);

export const GET = serveFunctions;
export const POST = serveFunctions;
export const PUT = serveFunctions;
export const dynamic = 'force-dynamic';
