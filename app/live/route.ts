import { hostedLive } from '@/server/trpc/live-stream';

/** The hosted app's live updates for the signed-in person's open pages (server-sent events). */
export const GET = (req: Request) => hostedLive(req);
export const dynamic = 'force-dynamic';
