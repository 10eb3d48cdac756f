/**
 * The Inngest client and the event catalogue, loaded on first use: the client reads the executor's
 * keys and URL when it loads, and scripts/start.ts sets them after it has composed the runtime.
 * Every handover to the engine goes through this one loader.
 */
export const engine = () => Promise.all([import('@/inngest/client'), import('@/inngest/events')]).then(([c, e]) => ({ inngest: c.inngest, events: e.events }));
