import { registerTurnDispatcher } from '@/server/chats/turn-dispatch';

/*
 * Composition (entry floor): a recorded chat turn starts by the chat-turn event
 * (inngest/functions/chat-turn.ts). The process call sends it once the turn's transaction has
 * committed. Loaded on first use, as server/runtime.ts does: the Inngest client reads the
 * executor's keys when it loads, and scripts/start.ts sets them after the composition is imported.
 */
const engine = () => Promise.all([import('@/inngest/client'), import('@/inngest/events')]).then(([c, e]) => ({ inngest: c.inngest, events: e.events }));

registerTurnDispatcher(async (turn) => {
  const { inngest, events } = await engine();
  await inngest.send(events.chatTurnRequested.create(turn));
});

export { chatTurnEndpoints } from '@/server/chats/turn-endpoints';
