import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sweepTurnEvents } from '@/server/chats/turn-events';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';
import { eventually, interimText, newChat, openStream, type Sse } from './turn-harness';

/**
 * Reconnecting to a turn (GET /chats/{chatId}/runs/{executionId}/events with Last-Event-ID): the
 * events the client missed, exactly, then the live rest, then the stream closes after the final
 * event. The turn runs on the engine against the scripted model; a held model call keeps it
 * mid-turn for as long as the test needs.
 */
const h = useRunHarness();
const app = h.app;

async function setUp() {
  const acct = await newAccount(app());
  const p = await h.person(acct);
  const chatId = await newChat(app(), p);
  return { acct, p, chatId };
}

const ids = (events: Sse[]) => events.map((e) => e.id);
const eventsOf = (chatId: string, executionId: string, key: string, headers: Record<string, string> = {}, query = '') =>
  openStream(app(), `/chats/${chatId}/runs/${executionId}/events${query}`, { key, headers });

describe('reconnecting with Last-Event-ID', () => {
  it('mid-turn: the missed events exactly, then the live rest, then the end', async () => {
    const { p, chatId } = await setUp();
    const held = h.state.llm.hold();
    h.state.llm.enqueue(held.script);
    const first = openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'Tell me a story' } } });
    await first.waitFor((e) => e.data?.state === 'thinking', 'thinking');
    await held.arrived;
    const executionId = first.events[0].data.executionId as string;
    expect(ids(first.events)).toEqual([1, 2, 3]);
    first.hangUp();

    // The client kept only event 1: it gets 2 and 3 from the store, then waits with the turn.
    const again = eventsOf(chatId, executionId, p.key, { 'Last-Event-ID': '1' });
    expect(await again.status).toBe(200);
    await again.waitFor((e) => e.id === 3, 'event 3');
    expect(ids(again.events)).toEqual([2, 3]);
    expect(again.events[0]).toEqual(first.events[1]);
    expect(again.events[1]).toEqual(first.events[2]);

    const story = 'Once upon a time a careful assistant streamed every token it had.';
    held.release({ text: story, chunkDelayMs: 2 });
    const all = await again.done;
    expect(all.at(-1)).toMatchObject({ event: 'message', data: { message: { content: story } } });
    expect(ids(all)).toEqual(all.map((_, i) => i + 2));
    expect(interimText(all, 1)).toBe(story);

    // A full replay (no Last-Event-ID) after the end is the same events from 1, and closes.
    const replay = await eventsOf(chatId, executionId, p.key).done;
    expect(replay.slice(0, 3)).toEqual(first.events);
    expect(replay.slice(1)).toEqual(all);
  });

  it('lastEventId in the query wins over the header; at the final event the stream closes at once', async () => {
    const { p, chatId } = await setUp();
    h.state.llm.enqueue({ text: 'Short answer.' });
    const events = await openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'Quick one' } } }).done;
    const executionId = events[0].data.executionId as string;
    const last = events.at(-1)!.id!;

    const fromQuery = await eventsOf(chatId, executionId, p.key, { 'Last-Event-ID': '1' }, `?lastEventId=${last - 2}`).done;
    expect(ids(fromQuery)).toEqual([last - 1, last]);
    const atEnd = eventsOf(chatId, executionId, p.key, { 'Last-Event-ID': String(last) });
    expect(await atEnd.status).toBe(200);
    expect(await atEnd.done).toEqual([]);

    const bad = await call(app(), `/chats/${chatId}/runs/${executionId}/events`, { key: p.key, headers: { 'Last-Event-ID': 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('Last-Event-ID');
    expect((await call(app(), `/chats/${chatId}/runs/aaaaaaaaaaaaaaaaaaaaaaaa/events`, { key: p.key })).status).toBe(404);
  });

  it('an event written by another process reaches an open stream through NOTIFY, without waiting for the heartbeat', async () => {
    const { p, chatId } = await setUp();
    process.env.STEWARD_SSE_HEARTBEAT_MS = '60000';
    try {
      const held = h.state.llm.hold();
      h.state.llm.enqueue(held.script);
      const s = openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'Hello' } } });
      await s.waitFor((e) => e.data?.state === 'thinking', 'thinking');
      await held.arrived;
      const executionId = s.events[0].data.executionId as string;
      const watcher = eventsOf(chatId, executionId, p.key, { 'Last-Event-ID': '3' });
      expect(await watcher.status).toBe(200);
      // Written straight to the table, as another Steward process on this database writes: nothing in this process hears of it but the database.
      await h.db().execute(sql`
        WITH bump AS (UPDATE chat_turns SET last_seq = last_seq + 1 WHERE id = ${executionId} RETURNING last_seq)
        INSERT INTO chat_turn_events (turn_id, seq, kind, data) SELECT ${executionId}, last_seq, 'status_update', '{"state":"elsewhere"}'::jsonb FROM bump`);
      const seen = await watcher.waitFor((e) => e.data?.state === 'elsewhere', 'the event written elsewhere', 5_000);
      expect(seen.id).toBe(4);
      await s.waitFor((e) => e.data?.state === 'elsewhere', 'the event on the first stream too', 5_000);
      held.release({ text: 'Done.' });
      expect((await watcher.done).at(-1)!.event).toBe('message');
      expect(ids(await s.done)).toEqual((await s.done).map((_, i) => i + 1));
    } finally {
      delete process.env.STEWARD_SSE_HEARTBEAT_MS;
    }
  });

  it('after a day the events are swept: the stream of the ended turn closes, the reply stays in the chat', async () => {
    const { p, chatId } = await setUp();
    h.state.llm.enqueue({ text: 'Kept in the chat.' });
    const events = await openStream(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'Remember this' } } }).done;
    const executionId = events[0].data.executionId as string;
    expect(await sweepTurnEvents(h.db(), new Date(Date.now() + 60_000))).toBe(0);
    expect(await sweepTurnEvents(h.db(), new Date(Date.now() + 25 * 3_600_000))).toBeGreaterThanOrEqual(events.length);
    process.env.STEWARD_SSE_HEARTBEAT_MS = '30';
    try {
      const replay = eventsOf(chatId, executionId, p.key);
      expect(await replay.status).toBe(200);
      expect(await replay.done).toEqual([]);
    } finally {
      delete process.env.STEWARD_SSE_HEARTBEAT_MS;
    }
    const messages = await eventually(async () => (await call(app(), `/chats/${chatId}/messages`, { key: p.key })).body.messages, 'messages');
    expect(messages.map((m: { content: string }) => m.content)).toContain('Kept in the chat.');
  });
});
