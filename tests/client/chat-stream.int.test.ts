import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createStewardClient, type ChatStreamEvent } from '@/client/index';

/*
 * The chat iterator against a loopback SSE server speaking the contract of spec 4 ("Chat stream
 * framing") and docs/chat-streaming.md: POST /chats/{chatId}/process streams the turn, and
 * GET /chats/{chatId}/runs/{executionId}/events with Last-Event-ID resumes after that id.
 */

const servers: { close: () => void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

const EVENTS = [
  { id: '1', event: 'status_update', data: { state: 'queued', executionId: 'exe_1' } },
  { id: '2', event: 'interim_message', data: { delta: 'Hel' } },
  { id: '3', event: 'interim_message', data: { delta: 'lo' } },
  { id: '4', event: 'message', data: { message: { id: 'msg_1', role: 'assistant', content: 'Hello' }, taskIds: ['tsk_1'] } },
];
const frame = (e: (typeof EVENTS)[number]) => `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;

type Seen = { method: string; url: string; lastEventId?: string; auth?: string; email?: string; body: string };

/** Serves the turn; the first stream is cut after `cutAfter` events (the socket destroyed mid-turn). */
async function turnServer(opts: { cutAfter: number; splitFrames?: boolean }) {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      seen.push({ method: req.method!, url: req.url!, lastEventId: req.headers['last-event-id'] as string | undefined, auth: req.headers.authorization, email: req.headers['x-user-email'] as string | undefined, body });
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8' });
      res.write(': heartbeat\n\n');
      if (req.method === 'POST' && req.url === '/api/chats/chat_1/process') {
        for (const e of EVENTS.slice(0, opts.cutAfter)) {
          const text = frame(e);
          if (opts.splitFrames) {
            res.write(text.slice(0, 7));
            await new Promise((r) => setTimeout(r, 5));
            res.write(text.slice(7));
          } else res.write(text);
        }
        await new Promise((r) => setTimeout(r, 20));
        req.socket.destroy();
        return;
      }
      if (req.method === 'GET' && req.url === '/api/chats/chat_1/runs/exe_1/events') {
        const after = Number(req.headers['last-event-id'] ?? 0);
        for (const e of EVENTS.filter((x) => Number(x.id) > after)) res.write(frame(e));
        res.end();
        return;
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => server.close() });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, seen };
}

async function collect(stream: AsyncIterable<ChatStreamEvent>) {
  const out: ChatStreamEvent[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

describe('chat streaming', () => {
  it('yields every event once, in order, resuming a cut stream with Last-Event-ID', async () => {
    const s = await turnServer({ cutAfter: 2, splitFrames: true });
    const steward = createStewardClient({ baseUrl: s.baseUrl, apiKey: 'ak_live_test', sleep: async () => undefined });
    const events = await collect(steward.as('ada@example.com').chats.process('chat_1', { message: { content: 'Hi' } }));
    expect(events.map((e) => [e.id, e.event])).toEqual(EVENTS.map((e) => [e.id, e.event]));
    const last = events.at(-1)!;
    if (last.event !== 'message') throw new Error('the turn should end with its message');
    expect(last.data.taskIds).toEqual(['tsk_1']);
    expect(last.data.message.content).toBe('Hello');
    expect(s.seen.map((r) => [r.method, r.url, r.lastEventId])).toEqual([
      ['POST', '/api/chats/chat_1/process', undefined],
      ['GET', '/api/chats/chat_1/runs/exe_1/events', '2'],
    ]);
    expect(JSON.parse(s.seen[0].body)).toEqual({ message: { content: 'Hi' } });
    expect(s.seen.every((r) => r.auth === 'Bearer ak_live_test' && r.email === 'ada@example.com')).toBe(true);
  });

  it('stops after the final event without reconnecting', async () => {
    const s = await turnServer({ cutAfter: 4 });
    const steward = createStewardClient({ baseUrl: s.baseUrl, apiKey: 'k', sleep: async () => undefined });
    expect(await collect(steward.chats.process('chat_1', { message: { content: 'Hi' } }))).toHaveLength(4);
    expect(s.seen).toHaveLength(1);
  });

  it('resumes a turn by its execution id from a given event', async () => {
    const s = await turnServer({ cutAfter: 0 });
    const steward = createStewardClient({ baseUrl: s.baseUrl, apiKey: 'k' });
    const events = await collect(steward.chats.events('chat_1', 'exe_1', { lastEventId: '3' }));
    expect(events.map((e) => e.id)).toEqual(['4']);
    expect(s.seen[0].lastEventId).toBe('3');
  });
});
