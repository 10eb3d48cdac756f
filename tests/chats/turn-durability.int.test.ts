import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@/db/embedded';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';
import { startScriptedModel, type ModelRequest, type ScriptedModel } from '../helpers/scripted-model';
import type { TestServer } from '../helpers/server';
import { interimText, newChat, openStream, type Sse } from './turn-harness';

/**
 * kill -9 in the middle of a chat turn: the real server (scripts/start.ts, API only, its built-in
 * executor in the same process) runs as a child process group on this file's database. The first
 * model call asks for save_memory; the second streams its text slowly, and the whole group is
 * killed with SIGKILL while it streams. After a restart on the same database the turn resumes:
 * the first call is not made again, the memory is saved once, the interrupted call is made anew,
 * and a client reconnecting with Last-Event-ID gets the rest: the events stored after the ones
 * it holds, the `restarted` event that voids the cut-off attempt, the new attempt, the reply.
 */

const MODEL = 'scripted-durable-chat';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let llm: ScriptedModel;
let port: number;
let server: TestServer;
let running: ProductionServer | null = null;

/** `npm start`'s entry point in its own process group, on this file's database and port; a short lease so the restart takes the turn over in seconds. */
async function startServer(): Promise<ProductionServer> {
  running = await startProductionServer(database, { STEWARD_EXECUTOR_LEASE_MS: '3000', STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: MODEL }, port);
  return running;
}

beforeAll(async () => {
  database = await createTestDatabase();
  llm = await startScriptedModel();
  port = await freePort();
  server = { baseUrl: `http://127.0.0.1:${port}/api`, database: database.database } as TestServer;
});
afterAll(async () => {
  await running?.kill('SIGKILL');
  await llm?.close();
  await database?.drop();
});

const toolResults = (r: ModelRequest) => r.messages.filter((m) => m.role === 'tool');
const SLOW = 'This answer streams slowly, eight characters at a time, so the server dies in the middle of it.';

describe('kill -9 of the server in the middle of a chat turn', () => {
  it('the turn resumes after a restart and the reconnecting client gets the rest', async () => {
    await startServer();
    const acct = await newAccount(server);
    const u = await newUser(server, acct);
    const key = await userKey(server, acct, u.id);
    const hired = await call(server, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    expect(hired.status, JSON.stringify(hired.body)).toBe(201);
    const chatId = await newChat(server, { key, assistantId: hired.body.assistant.id });

    let slowCalls = 0;
    llm.setFallback((req) => {
      if (!toolResults(req).length) return { toolCalls: [{ name: 'save_memory', arguments: { content: 'Prefers window seats' } }] };
      slowCalls++;
      // The first attempt of the second call streams slowly and dies with the server; the next one answers at once.
      return slowCalls === 1 ? { text: SLOW, chunkDelayMs: 400 } : { text: 'Noted: window seats from now on.' };
    });

    const first = openStream(server, `/chats/${chatId}/process`, { key, body: { message: { content: 'I like window seats' } } });
    expect(await first.status).toBe(200);
    // Two deltas of the second model call have arrived: the call is streaming now.
    await first.waitFor((e) => e.event === 'interim_message' && e.data.step === 2 && first.events.filter((x) => x.event === 'interim_message').length >= 2, 'streaming of the second call', 60_000);
    const held: Sse[] = [...first.events];
    const lastHeld = held.at(-1)!.id!;
    const executionId = held[0].data.executionId as string;

    await running!.kill('SIGKILL');
    await first.done;
    await startServer();

    const rest = await openStream(server, `/chats/${chatId}/runs/${executionId}/events`, { key, headers: { 'Last-Event-ID': String(lastHeld) } }).done;
    // Exactly what followed, numbered on from the last event the client held, to the reply.
    expect(rest.map((e) => e.id)).toEqual(rest.map((_, i) => lastHeld + 1 + i));
    const final = rest.at(-1)!;
    expect(final).toMatchObject({ event: 'message', data: { message: { content: 'Noted: window seats from now on.' }, taskIds: [] } });
    const restarted = rest.filter((e) => e.data?.state === 'restarted');
    expect(restarted).toHaveLength(1);
    expect(restarted[0].data.step).toBe(2);
    // It voids the cut-off attempt from its first event on: the second call's `thinking`.
    const thinking2 = held.find((e) => e.data?.state === 'thinking' && e.data.step === 2)!;
    expect(restarted[0].data.supersedesFrom).toBe(thinking2.id);
    const after = rest.slice(rest.indexOf(restarted[0]));
    expect(interimText(after, 2)).toBe('Noted: window seats from now on.');
    // What the cut-off attempt streamed before the kill is a prefix of its text, as the client saw it.
    expect(SLOW.startsWith(interimText([...held, ...rest.slice(0, rest.indexOf(restarted[0]))], 2))).toBe(true);

    // The first model call was made once; the second twice (cut off, then again); the memory saved once.
    expect(llm.requests.filter((r) => toolResults(r).length === 0)).toHaveLength(1);
    expect(llm.requests.filter((r) => toolResults(r).length === 1)).toHaveLength(2);
    const memories = await call(server, '/memories', { key });
    expect(memories.body.memories.filter((m: { content: string }) => m.content === 'Prefers window seats')).toHaveLength(1);
    const messages = await call(server, `/chats/${chatId}/messages`, { key });
    expect(messages.body.messages.filter((m: { role: string }) => m.role === 'assistant').map((m: { content: string }) => m.content)).toEqual([
      'Noted: window seats from now on.',
    ]);
    // Usage: one row per finished model call.
    const usage = await call(server, `/chats/${chatId}/usage`, { key });
    expect(usage.body.total).toMatchObject({ runs: 1, turns: 2 });

    // Replaying from the start gives the held events unchanged, then the rest.
    const replay = await openStream(server, `/chats/${chatId}/runs/${executionId}/events`, { key }).done;
    expect(replay.slice(0, held.length)).toEqual(held);
    expect(replay.slice(lastHeld)).toEqual(rest);
  }, 300_000);
});
