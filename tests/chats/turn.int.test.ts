import { describe, expect, it } from 'vitest';
import { endpoints } from '@/server/endpoints';
import { nextRouteHandlers } from '@/server/http/next-routes';
import { call, newAccount } from '../helpers/client';
import { MODEL, useRunHarness } from '../agent/run-harness';
import { eventually, interimText, newChat, openStream, sseReader, type Sse } from './turn-harness';

/**
 * The streaming chat turn (issue 16): POST /chats/{chatId}/process answers text/event-stream at
 * once, the turn runs on the engine (the real chat-turn function through the built-in executor)
 * against the scripted OpenAI-compatible model, and every event is stored and numbered.
 */
const h = useRunHarness();
const app = h.app;

async function setUp() {
  const acct = await newAccount(app());
  const p = await h.person(acct);
  const chatId = await newChat(app(), p);
  return { acct, p, chatId };
}

const processChat = (chatId: string, key: string, body: unknown) => openStream(app(), `/chats/${chatId}/process`, { key, body });

describe('POST /chats/{chatId}/process', () => {
  it('streams queued, running, thinking, the text as interim deltas, then the reply as one message event', async () => {
    const { p, chatId } = await setUp();
    const reply = 'Thursday at 8 works: I found a quiet table for four near the office.';
    h.state.llm.enqueue({ text: reply });
    const s = processChat(chatId, p.key, { message: { content: 'Find us a table\nfor Thursday' } });
    expect(await s.status).toBe(200);
    expect((await s.headers)['content-type']).toBe('text/event-stream; charset=utf-8');
    const events = await s.done;

    // Numbered from 1 without gaps, in the spec's framing order (id, event, data).
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(s.raw().startsWith('id: 1\nevent: status_update\ndata: ')).toBe(true);
    const [queued, running, thinking] = events;
    expect(queued).toMatchObject({ event: 'status_update', data: { state: 'queued', chatId } });
    const executionId = queued.data.executionId as string;
    expect(executionId).toMatch(/^[0-9a-f]{24}$/);
    expect(running).toMatchObject({ event: 'status_update', data: { state: 'running' } });
    expect(thinking).toMatchObject({ event: 'status_update', data: { state: 'thinking', step: 1 } });
    const interim = events.filter((e) => e.event === 'interim_message');
    // The scripted model streams 8 characters a chunk: every chunk is its own event.
    expect(interim.length).toBe(Math.ceil(reply.length / 8));
    expect(interimText(events, 1)).toBe(reply);
    const last = events[events.length - 1];
    expect(last.event).toBe('message');
    expect(last.data.taskIds).toEqual([]);
    expect(last.data.message).toMatchObject({ role: 'assistant', content: reply });
    expect(events.filter((e) => e.event === 'message' || e.event === 'error')).toHaveLength(1);

    // The model read the message verbatim, last, and streamed with usage.
    const [request] = h.state.llm.requests;
    expect(request.stream).toBe(true);
    expect(request.includeUsage).toBe(true);
    expect(request.model).toBe(MODEL);
    expect(request.messages[0].role).toBe('system');
    expect(request.messages[0].content).toContain('Ada');
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Find us a table\nfor Thursday' });

    // Both messages are in the chat.
    const messages = await call(app(), `/chats/${chatId}/messages`, { key: p.key });
    expect(messages.status).toBe(200);
    const contents = messages.body.messages.map((m: { role: string; content: string }) => [m.role, m.content]);
    expect(contents).toEqual(expect.arrayContaining([['user', 'Find us a table\nfor Thursday'], ['assistant', reply]]));
    expect(messages.body.messages.find((m: { role: string }) => m.role === 'assistant').id).toBe(last.data.message.id);
  });

  it('puts the tasks create_task opened into the message event’s taskIds', async () => {
    const { p, chatId } = await setUp();
    h.state.llm.enqueue(
      // Held for approval, so no run of the new task takes the scripted replies meanwhile.
      { toolCalls: [{ name: 'create_task', arguments: { title: 'Book the restaurant', description: 'Thursday 8pm, four people', needsApproval: true } }] },
      { text: 'I opened a task to book it.' },
    );
    const events = await processChat(chatId, p.key, { message: { content: 'Please book it' } }).done;
    const states = events.filter((e) => e.event === 'status_update').map((e) => e.data.state);
    expect(states).toEqual(['queued', 'running', 'thinking', 'tool_calls', 'tool_result', 'thinking']);
    const result = events.find((e) => e.data?.state === 'tool_result')!;
    expect(result.data).toMatchObject({ step: 1, tool: 'create_task', ok: true });
    const final = events.at(-1)!;
    expect(final.event).toBe('message');
    expect(final.data.taskIds).toHaveLength(1);
    expect(final.data.taskIds[0]).toBe(result.data.taskId);
    expect(final.data.message.content).toBe('I opened a task to book it.');

    const task = await call(app(), `/tasks/${final.data.taskIds[0]}`, { key: p.key });
    expect(task.status).toBe(200);
    expect(task.body.task).toMatchObject({ title: 'Book the restaurant', createdBy: 'agent', assistant: p.assistantId, proposalStatus: 'pending_user_approval' });
    // The second model call read the tool call and its result.
    const second = h.state.llm.requests[1];
    const toolMessage = second.messages.find((m: { role: string }) => m.role === 'tool');
    expect(toolMessage.content).toContain(task.body.task.id);

    // The next turn replays that turn's tool call before its reply.
    h.state.llm.enqueue({ text: 'Sure.' });
    await processChat(chatId, p.key, { message: { content: 'Thanks' } }).done;
    const third = h.state.llm.requests[2];
    const roles = third.messages.map((m: { role: string }) => m.role);
    expect(roles.slice(1)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('without any model: an error event model_not_configured, HTTP 200, and a later turn works once one is set', async () => {
    const { p, chatId } = await setUp();
    h.withoutModel();
    const s = processChat(chatId, p.key, { message: { content: 'Hello?' } });
    expect(await s.status).toBe(200);
    const events = await s.done;
    expect(events.map((e) => e.event)).toEqual(['status_update', 'status_update', 'error']);
    expect(events[2].data.code).toBe('model_not_configured');
    expect(events[2].data.message).toContain('STEWARD_MODEL_MEDIUM');
    expect(h.state.llm.requests).toHaveLength(0);

    process.env.STEWARD_MODEL_BASE_URL = h.state.llm.baseUrl;
    process.env.STEWARD_MODEL_MEDIUM = MODEL;
    h.state.llm.enqueue({ text: 'Hello!' });
    const again = await processChat(chatId, p.key, { message: { content: 'Hello again' } }).done;
    expect(again.at(-1)).toMatchObject({ event: 'message', data: { message: { content: 'Hello!' } } });
  });

  it('answers a saved message named by triggeringActivityId, and ignores a bare string message', async () => {
    const { p, chatId } = await setUp();
    const saved = await call(app(), `/chats/${chatId}/messages`, { key: p.key, body: { content: 'Saved earlier: what is on my calendar?' } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    h.state.llm.enqueue({ text: 'Nothing today.' }, { text: 'Still nothing.' });
    const first = await processChat(chatId, p.key, { triggeringActivityId: saved.body.message.id }).done;
    expect(first.at(-1)!.event).toBe('message');
    expect(h.state.llm.requests[0].messages.at(-1)).toEqual({ role: 'user', content: 'Saved earlier: what is on my calendar?' });

    // A bare string is not a message: nothing is saved, and the turn answers the newest message.
    const second = await processChat(chatId, p.key, { message: 'ignored text' }).done;
    expect(second.at(-1)!.event).toBe('message');
    const messages = await call(app(), `/chats/${chatId}/messages`, { key: p.key });
    const contents = messages.body.messages.map((m: { content: string }) => m.content);
    expect(contents).not.toContain('ignored text');
    expect(contents.filter((c: string) => c === 'Saved earlier: what is on my calendar?')).toHaveLength(1);
  });

  it('refuses bad input with 400 naming each field, before any stream', async () => {
    const { p, chatId } = await setUp();
    const noContent = await call(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { subject: 'x' } } });
    expect(noContent.status).toBe(400);
    expect(JSON.stringify(noContent.body)).toContain('message');
    const badFile = await call(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: { content: 'x', files: [{ fileId: 'nope' }] } } });
    expect(badFile.status).toBe(400);
    expect(JSON.stringify(badFile.body)).toContain('fileId');
    const unknown = await call(app(), `/chats/${chatId}/process`, { key: p.key, body: { triggeringActivityId: 'aaaaaaaaaaaaaaaaaaaaaaaa' } });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('triggeringActivityId');
    const nothing = await call(app(), `/chats/${chatId}/process`, { key: p.key, body: { message: 'bare' } });
    expect(nothing.status).toBe(400);
    expect(JSON.stringify(nothing.body)).toContain('message');
    expect(h.state.llm.requests).toHaveLength(0);
  });

  it('a client that hangs up does not stop the turn: the reply is stored', async () => {
    const { p, chatId } = await setUp();
    const held = h.state.llm.hold();
    h.state.llm.enqueue(held.script);
    const s = processChat(chatId, p.key, { message: { content: 'Take your time' } });
    await s.waitFor((e) => e.data?.state === 'thinking', 'thinking');
    await held.arrived;
    s.hangUp();
    await eventually(async () => s.ended(), 'the client to be gone');
    held.release({ text: 'Here is my considered answer.' });
    const reply = await eventually(async () => {
      const messages = await call(app(), `/chats/${chatId}/messages`, { key: p.key });
      return messages.body.messages.find((m: { role: string }) => m.role === 'assistant');
    }, 'the reply in the chat');
    expect(reply.content).toBe('Here is my considered answer.');
    expect(held.arrived).toBeTruthy();
  });

  it('sends heartbeat comments while the turn is idle', async () => {
    const { p, chatId } = await setUp();
    process.env.STEWARD_SSE_HEARTBEAT_MS = '40';
    try {
      const held = h.state.llm.hold();
      h.state.llm.enqueue(held.script);
      const s = processChat(chatId, p.key, { message: { content: 'Hello' } });
      await held.arrived;
      await eventually(async () => s.comments() >= 2, 'two heartbeats');
      expect(s.raw()).toContain(': heartbeat\n\n');
      held.release({ text: 'Hi' });
      const events = await s.done;
      expect(events.at(-1)!.event).toBe('message');
    } finally {
      delete process.env.STEWARD_SSE_HEARTBEAT_MS;
    }
  });

  it('usage totals equal what the model reported, per turn and in total', async () => {
    const { p, chatId } = await setUp();
    h.state.llm.enqueue(
      { toolCalls: [{ name: 'search_memories', arguments: { query: 'restaurants' } }], usage: { promptTokens: 100, completionTokens: 20, cachedTokens: 30 } },
      { text: 'Nothing saved about restaurants.', usage: { promptTokens: 50, completionTokens: 7 } },
      { text: 'Bye.', usage: { promptTokens: 11, completionTokens: 2 } },
    );
    const first = await processChat(chatId, p.key, { message: { content: 'Any restaurants I like?' } }).done;
    await processChat(chatId, p.key, { message: { content: 'Ok bye' } }).done;
    const usage = await call(app(), `/chats/${chatId}/usage`, { key: p.key });
    expect(usage.status).toBe(200);
    expect(usage.body.total).toEqual({ inputTokens: 70 + 50 + 11, outputTokens: 29, cacheReadTokens: 30, cacheCreationTokens: 0, totalTokens: 131 + 29 + 30, runs: 2, turns: 3 });
    expect(usage.body.rows.map((r: { runId: string; seq: number; turns: number; modelTier: string }) => [r.seq, r.turns, r.modelTier])).toEqual([
      [0, 2, 'medium'],
      [1, 1, 'medium'],
    ]);
    expect(usage.body.rows[0].runId).toBe(first[0].data.executionId);
    expect(usage.body.rows[0]).toMatchObject({ inputTokens: 120, outputTokens: 27, cacheReadTokens: 30 });
    expect(usage.body.credits.runs).toHaveLength(2);
  });

  it('another user’s chat is 404 for process, events and usage', async () => {
    const { acct, p, chatId } = await setUp();
    h.state.llm.enqueue({ text: 'Mine.' });
    const events = await processChat(chatId, p.key, { message: { content: 'Hi' } }).done;
    const executionId = events[0].data.executionId;
    const other = await h.person(acct);
    const refused = await call(app(), `/chats/${chatId}/process`, { key: other.key, body: { message: { content: 'Let me in' } } });
    expect(refused.status).toBe(404);
    expect((await call(app(), `/chats/${chatId}/runs/${executionId}/events`, { key: other.key })).status).toBe(404);
    expect((await call(app(), `/chats/${chatId}/usage`, { key: other.key })).status).toBe(404);
    // Their own chat does not open this chat's execution either.
    const theirs = await newChat(app(), other);
    expect((await call(app(), `/chats/${theirs}/runs/${executionId}/events`, { key: other.key })).status).toBe(404);
    expect(h.state.llm.requests).toHaveLength(1);
    const messages = await call(app(), `/chats/${chatId}/messages`, { key: p.key });
    expect(messages.body.messages.map((m: { content: string }) => m.content)).not.toContain('Let me in');
  });
});

describe('the same stream through the route files (STEWARD_HTTP=next)', () => {
  it('streams the turn event by event to its final message', async () => {
    const { p, chatId } = await setUp();
    h.state.llm.enqueue({ text: 'Through Next as well.' });
    const route = nextRouteHandlers(endpoints, () => app().kernel)('/chats/{chatId}/process');
    const res = await route.POST(
      new Request(`${app().baseUrl}/chats/${chatId}/process`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${p.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: { content: 'Via next' } }),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    const parse = sseReader();
    const decoder = new TextDecoder();
    const events: Sse[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(...parse.feed(decoder.decode(value, { stream: true })));
    }
    expect(events[0]).toMatchObject({ id: 1, event: 'status_update', data: { state: 'queued' } });
    expect(interimText(events)).toBe('Through Next as well.');
    expect(events.at(-1)).toMatchObject({ event: 'message', data: { message: { content: 'Through Next as well.' }, taskIds: [] } });
  });
});
