import { sharedDatabase } from '@/db/client';
import { eventStream } from '@/server/http/event-stream';
import { errorResponse, toResponse } from '@/server/http/reply';
import { withApiHeaders } from '@/server/http/response-headers';
import { unauthorized } from '@/server/http/errors';
import { logger } from '@/server/logger';
import { portalContext } from './context';
import { liveHub, type LiveTopic } from './live';

const HEARTBEAT_MS = 20_000;

/**
 * GET /live: a server-sent event stream for the signed-in person's open pages. Each event
 * (`event: moved`, data `{topics}`) names the lists that changed: `needs` (what needs them),
 * `tasks`, `chats`, `sent`. A comment every 20 s keeps proxies from closing it; the browser's
 * EventSource reconnects by itself when it drops.
 */
export async function hostedLive(req: Request): Promise<Response> {
  try {
    const ctx = await portalContext(sharedDatabase().db, req.headers);
    const userId = ctx.actor?.user?.id;
    if (!userId) throw unauthorized('Sign in first');
    const res = eventStream(req.signal, async (send) => {
      let queued: LiveTopic[] = [];
      let wake: (() => void) | null = null;
      const stop = liveHub(() => sharedDatabase().db).subscribe(userId, (moved) => {
        queued = [...new Set([...queued, ...moved])];
        wake?.();
      });
      const gone = new Promise<void>((r) => req.signal.addEventListener('abort', () => r(), { once: true }));
      try {
        await send({ event: 'ready', data: {} });
        while (!req.signal.aborted) {
          if (queued.length) {
            const topics = queued;
            queued = [];
            await send({ event: 'moved', data: { topics } });
            continue;
          }
          let beat: ReturnType<typeof setTimeout> | undefined;
          const timer = new Promise<'beat'>((r) => (beat = setTimeout(() => r('beat'), HEARTBEAT_MS)));
          const woken = new Promise<'woken'>((r) => (wake = () => r('woken')));
          const why = await Promise.race([timer, woken, gone.then(() => 'gone' as const)]);
          clearTimeout(beat);
          wake = null;
          if (why === 'beat') await send({ comment: 'still here' });
        }
      } finally {
        stop();
      }
    });
    const out = withApiHeaders(res, ctx.site.secure);
    out.headers.set('Cache-Control', 'no-store, no-transform');
    return out;
  } catch (e) {
    return withApiHeaders(toResponse(errorResponse(e, logger)), false);
  }
}
