import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskRuns } from '@/db/schema';
import { freePort } from '@/db/embedded';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';
import { startScriptedModel, type ModelRequest, type ScriptedModel } from '../helpers/scripted-model';
import type { TestServer } from '../helpers/server';

/**
 * kill -9 in the middle of a run (issue 14): the real server (`scripts/start.ts`, the API alone
 * with STEWARD_PAGES=off, its built-in executor and /api/inngest in one process) runs as a child
 * process in its own process group against this file's database. The scripted model answers the
 * first call with save_memory and holds the second one open; the whole group is killed with
 * SIGKILL while that call is in flight, and the server is started again on the same database.
 * The run must finish without a second first call, without a second memory, and the second call
 * (which never finished) is made again once the dead process's lease on the run ends.
 */

const MODEL = 'scripted-durable-1';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let llm: ScriptedModel;
let port: number;
let server: TestServer;
let running: ProductionServer | null = null;
/** What the server printed, for the failure message when it does not start. */
const output = () => running?.output() ?? '';

/** `npm start`'s entry point in its own process group, on this file's database and port. */
async function startServer(): Promise<ProductionServer> {
  // A short lease: after the kill, the restarted executor takes the dead process's run over in seconds.
  running = await startProductionServer(database, { STEWARD_EXECUTOR_LEASE_MS: '3000', STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: MODEL }, port);
  return running;
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not met within ${timeoutMs} ms\n${output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Resolves, or fails naming what did not happen in time. */
function within<T>(what: string, p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms\n${output().slice(-4000)}`)), ms))]);
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

describe('kill -9 of the server in the middle of a run', () => {
  it('after a restart the run finishes; no finished model call is repeated and no tool effect happens twice', async () => {
    await startServer();
    const acct = await newAccount(server);
    const u = await newUser(server, acct);
    const key = await userKey(server, acct, u.id);
    const hired = await call(server, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    expect(hired.status, JSON.stringify(hired.body)).toBe(201);
    const created = await call(server, '/tasks', { key, body: { title: 'Remember my seat', assistant: hired.body.assistant.id } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const taskId = created.body.task.id as string;

    const held = llm.hold();
    llm.enqueue(
      { toolCalls: [{ name: 'save_memory', arguments: { content: 'Prefers an aisle seat' } }] },
      held.script,
      { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Seat preference saved' } }] },
    );
    const processed = await call(server, `/tasks/${taskId}/process`, { key, body: { message: 'Please remember I like aisle seats' } });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    const runId = processed.body.process.executionId as string;

    // The second model call is open: the first call and the save_memory step are stored.
    const second = await within('the second model call', held.arrived, 60_000);
    expect(toolResults(second).map((m) => m.content).join()).toContain('save_memory');
    const dropped = await killAndRestart(held.abandoned);
    expect(dropped).toBe(second);
    expect(second.abandoned).toBe(true);

    const done = await until(
      'the task completes after the restart',
      async () => {
        const got = await call(server, `/tasks/${taskId}`, { key });
        return got.status === 200 && got.body.task.status === 'completed' ? got.body.task : null;
      },
      // The dead process's lease on the run must end first (60 s in the built-in executor).
      150_000,
    );
    expect(done).toMatchObject({ status: 'completed', summary: 'Seat preference saved' });

    // Call 1 (no tool result yet) was made once; call 2 twice: held when the server died, made again after.
    const calls = llm.requests;
    expect(calls.filter((r) => toolResults(r).length === 0)).toHaveLength(1);
    expect(calls.filter((r) => toolResults(r).length === 1)).toHaveLength(2);
    expect(calls).toHaveLength(3);
    expect(calls.every((r) => r.model === MODEL)).toBe(true);

    // The tool effect happened once: one memory, one save_memory activity.
    const memories = await call(server, '/memories', { key });
    expect(memories.status).toBe(200);
    expect(memories.body.memories.filter((m: { content: string }) => m.content === 'Prefers an aisle seat')).toHaveLength(1);
    const activities = await call(server, `/tasks/${taskId}/activities?limit=100`, { key });
    expect(activities.status).toBe(200);
    const toolNames = activities.body.activities.flatMap((a: { type: string; toolCall: { name: string } | null }) => (a.type === 'tool_call' ? [a.toolCall!.name] : []));
    expect(toolNames.sort()).toEqual(['complete_task', 'save_memory']);

    // One run, finished, with one usage row per model step that finished (the killed call has none).
    const runs = await database.database.db.select().from(taskRuns).where(eq(taskRuns.taskId, taskId));
    expect(runs.map((r) => [r.id, r.status])).toEqual([[runId, 'finished']]);
    const usage = await call(server, `/tasks/${taskId}/usage`, { key });
    expect(usage.body.rows.map((r: { runId: string; seq: number }) => [r.runId, r.seq])).toEqual([
      [runId, 0],
      [runId, 1],
    ]);
  }, 300_000);
});

/** SIGKILL to the server's whole process group while a model call is held, then the server again on the same database and port. */
async function killAndRestart(abandoned: Promise<ModelRequest>): Promise<ModelRequest> {
  await running!.kill('SIGKILL');
  const request = await within('the held model call loses its client', abandoned, 30_000);
  await startServer();
  return request;
}
