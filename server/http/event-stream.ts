/**
 * One server-sent event: `data` is sent as JSON. A `comment` frame (`: text`) carries no event:
 * clients ignore it, and it keeps proxies from closing an idle stream (heartbeats).
 */
export type ServerEvent = { event?: string; id?: string; data: unknown } | { comment: string };

const encoder = new TextEncoder();

/** The wire form: `id:` and `event:` lines when given, the JSON on one `data:` line, a blank line. */
function formatEvent(e: ServerEvent): Uint8Array {
  if ('comment' in e) return encoder.encode(`: ${e.comment.replace(/[\r\n]+/g, ' ')}\n\n`);
  const head = (e.id ? `id: ${e.id}\n` : '') + (e.event ? `event: ${e.event}\n` : '');
  return encoder.encode(`${head}data: ${JSON.stringify(e.data)}\n\n`);
}

/** Thrown by `send` once the client has gone: the producer stops there. */
export class ClientGone extends Error {
  constructor() {
    super('the client went away');
  }
}

/**
 * A `text/event-stream` answer whose events `produce` sends, for a handler to return as it is.
 * Both HTTP paths write each event as it is sent. `send` resolves once the event is queued and
 * the queue has room again, so a slow reader slows the producer instead of filling memory; it
 * throws ClientGone once the client went away (`signal`, the handler's ctx.signal) or stopped
 * reading the stream. The stream ends when `produce` returns, and is cut if it throws.
 */
export function eventStream(signal: AbortSignal, produce: (send: (e: ServerEvent) => Promise<void>) => Promise<void>): Response {
  let gone = signal.aborted;
  let room: (() => void) | undefined;
  const wake = () => {
    room?.();
    room = undefined;
  };
  const leave = () => {
    gone = true;
    wake();
  };
  signal.addEventListener('abort', leave, { once: true });

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const send = async (e: ServerEvent) => {
          if (gone) throw new ClientGone();
          controller.enqueue(formatEvent(e));
          while (!gone && (controller.desiredSize ?? 1) <= 0) await new Promise<void>((r) => (room = r));
          if (gone) throw new ClientGone();
        };
        // Not awaited: start() returning lets the first events flow while later ones are produced.
        void produce(send).then(
          () => {
            signal.removeEventListener('abort', leave);
            if (!gone) controller.close();
          },
          (err: unknown) => {
            signal.removeEventListener('abort', leave);
            if (!gone && !(err instanceof ClientGone)) controller.error(err);
          },
        );
      },
      pull: wake,
      cancel: leave,
    },
    { highWaterMark: 1 },
  );
  // The kernel adds Cache-Control: no-store as to every answer; X-Accel-Buffering: no asks
  // nginx-style proxies not to hold events back.
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Accel-Buffering': 'no' } });
}
