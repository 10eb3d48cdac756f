import { z } from 'zod';
import { defineEndpoint } from '@/server/http/endpoint';
import { eventStream } from '@/server/http/event-stream';

/** What the server side of one streaming request did, for the test to compare with what arrived. */
export type StreamRun = {
  /** Indexes of the events the handler produced, in order. */
  produced: number[];
  /** The handler's ctx.signal fired. */
  aborted: boolean;
  /** The producer returned or stopped. */
  finished: boolean;
  /** Lets the handler produce events up to (excluding) `n`; it waits for this after the first. */
  allow(n: number): void;
};

/**
 * GET /_stream-test?count=N&intervalMs=M&size=B: N server-sent events `tick` with `{i}` (and B
 * bytes of padding), M ms apart. The first event is produced at once; each later one also waits
 * until the test allows it, so "the first event arrived while the second did not exist yet" is a
 * fact of order, not of timing. Internal (not in OpenAPI), and registered only by tests.
 */
export function streamProbe() {
  const runs: StreamRun[] = [];
  const endpoint = defineEndpoint({
    method: 'GET',
    path: '/_stream-test',
    summary: 'Streaming probe (tests only)',
    tags: ['Probe'],
    auth: 'any',
    internal: true,
    raw: true,
    query: z.object({
      count: z.coerce.number().int().min(1).max(100_000),
      intervalMs: z.coerce.number().int().min(0).max(10_000).default(0),
      size: z.coerce.number().int().min(0).max(1_000_000).default(0),
      gated: z.enum(['0', '1']).default('1'),
    }),
    response: z.unknown(),
    handle: async ({ query, signal }) => {
      let allowed = query.gated === '1' ? 1 : Infinity;
      let nudge: (() => void) | undefined;
      const run: StreamRun = {
        produced: [],
        aborted: false,
        finished: false,
        allow(n) {
          allowed = Math.max(allowed, n);
          nudge?.();
        },
      };
      runs.push(run);
      signal.addEventListener('abort', () => {
        run.aborted = true;
        nudge?.();
      });
      const pad = 'x'.repeat(query.size);
      return eventStream(signal, async (send) => {
        try {
          for (let i = 0; i < query.count; i++) {
            while (i >= allowed && !signal.aborted) await new Promise<void>((r) => (nudge = r));
            if (signal.aborted) return;
            if (i > 0 && query.intervalMs) await new Promise((r) => setTimeout(r, query.intervalMs));
            run.produced.push(i);
            await send({ event: 'tick', data: query.size ? { i, pad } : { i } });
          }
        } finally {
          run.finished = true;
        }
      });
    },
  });
  return { endpoint, runs };
}

/** Parses server-sent events out of arriving text: complete events are returned, the rest kept. */
export function sseParser() {
  let buffer = '';
  return (chunk: string): Array<{ event: string | null; data: unknown }> => {
    buffer += chunk;
    const out: Array<{ event: string | null; data: unknown }> = [];
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? null;
      const data = /^data: (.*)$/m.exec(block)?.[1];
      out.push({ event, data: data === undefined ? null : JSON.parse(data) });
    }
    return out;
  };
}
