import http from 'node:http';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executorRuns, taskRuns, tasks } from '@/db/schema';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { newChat, openStream } from '../chats/turn-harness';

/**
 * A deployment of several Steward processes on one PostgreSQL (docs/deploy.md), reached at their
 * own ports with nothing in front: what one process counts or queues, the other sees and does.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let llm: ScriptedModel;
let a: ProductionServer;
let b: ProductionServer;
const MODEL = 'scripted-two-processes';

beforeAll(async () => {
  database = await createTestDatabase();
  llm = await startScriptedModel();
  const env = {
    RATE_LIMIT_READS_PER_MINUTE: '6',
    STEWARD_EXECUTOR_LEASE_MS: '3000',
    STEWARD_MODEL_BASE_URL: llm.baseUrl,
    STEWARD_MODEL_MEDIUM: MODEL,
  };
  [a, b] = await Promise.all([startProductionServer(database, env), startProductionServer(database, env)]);
}, 180_000);
afterAll(async () => {
  await Promise.all([a?.kill(), b?.kill()]);
  await llm?.close();
  await database?.drop();
});

/** Two GET /ready on one kept-alive socket, `idleMs` apart: whether the second found the socket still open. */
function twoOnOneSocket(port: number, idleMs: number): Promise<{ statuses: number[]; sameSocket: boolean }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/api/ready', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
      });
      req.on('error', reject);
    });
  return (async () => {
    const first = await get();
    await new Promise((r) => setTimeout(r, idleMs));
    const second = await get();
    agent.destroy();
    return { statuses: [first.status, second.status], sameSocket: first.socket === second.socket };
  })();
}

describe('keep-alive', () => {
  it('an idle kept-alive connection is still open after 6 s (past Node’s 5 s default), so a balancer or client reusing it is not reset', async () => {
    const { statuses, sameSocket } = await twoOnOneSocket(a.port, 6_000);
    expect(statuses).toEqual([200, 200]);
    expect(sameSocket).toBe(true);
  });
});

describe('two production processes on one database', () => {
  it('both are ready, and a rate limit counts requests to either process together', async () => {
    for (const s of [a, b]) expect((await call(s, '/ready', { key: null })).body).toMatchObject({ ok: true, status: 'ready' });
    const acct = await newAccount(a);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call(i % 2 ? b : a, '/me', { key: acct.key })).status);
    // Six reads a minute for the account, client and path, wherever they land; the rest are refused.
    expect(statuses.slice(0, 6)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(statuses.slice(6)).toEqual([429, 429]);
  });

  it('a chat stream opened at one process resumes at the other with Last-Event-ID: the missed events, then the live rest', { timeout: 60_000 }, async () => {
    const acct = await newAccount(a, 'Streams');
    const u = await newUser(a, acct);
    const key = await userKey(a, acct, u.id);
    const hired = await call(a, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    const chatId = await newChat(a, { key, assistantId: hired.body.assistant.id });
    const held = llm.hold();
    llm.enqueue(held.script);
    const first = openStream(a, `/chats/${chatId}/process`, { key, body: { message: { content: 'Plan my week' } } });
    const opened = await first.waitFor((e) => e.data?.executionId, 'the first event');
    const executionId = opened.data.executionId as string;
    await held.arrived;
    await first.waitFor((e) => e.data?.state === 'thinking', 'the thinking update');
    const seen = first.events.filter((e) => e.id !== null).map((e) => e.id as number);
    first.hangUp();

    // The model answers while nobody listens; the client comes back to the other process.
    held.release({ text: 'Monday: gym. Tuesday: dentist.' });
    const resumed = openStream(b, `/chats/${chatId}/runs/${executionId}/events`, { key, headers: { 'Last-Event-ID': String(Math.max(...seen)) } });
    const events = await resumed.done;
    const ids = events.map((e) => e.id);
    // Exactly the events after the last one seen, without a gap, ending with the reply.
    expect(ids[0]).toBe(Math.max(...seen) + 1);
    expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
    expect(events.at(-1)).toMatchObject({ event: 'message', data: { message: { role: 'assistant', content: 'Monday: gym. Tuesday: dentist.' }, taskIds: [] } });
    expect(events.filter((e) => e.event === 'interim_message').map((e) => e.data.delta).join('')).toBe('Monday: gym. Tuesday: dentist.');
  });

  it('durable work queued at one process is done once, by the other when the first dies', { timeout: 120_000 }, async () => {
    const acct = await newAccount(a, 'Work');
    const u = await newUser(a, acct);
    const key = await userKey(a, acct, u.id);
    const hired = await call(a, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    expect(hired.status, JSON.stringify(hired.body)).toBe(201);
    // Whichever process takes the run is killed in the middle of the model call.
    const held = llm.hold();
    llm.enqueue(held.script, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Booked' } }] });
    const created = await call(a, '/tasks', { key, body: { title: 'Book a table', assistant: hired.body.assistant.id } });
    const taskId = created.body.task.id as string;
    const processed = await call(a, `/tasks/${taskId}/process`, { key, body: { message: 'For two, Friday' } });
    expect(processed.status).toBe(200);
    await held.arrived;
    const [claimed] = await database.database.db.select({ owner: executorRuns.leaseOwner }).from(executorRuns).where(and(like(executorRuns.functionId, '%task-run'), eq(executorRuns.status, 'running')));
    // An executor's lease owner starts with its process id.
    const [holder, survivor] = claimed?.owner?.startsWith(`${b.child.pid}-`) ? [b, a] : [a, b];
    await holder.kill('SIGKILL');
    held.release({ text: 'too late: this process is gone' });

    // The other process takes the run over once the dead one's lease ends, and finishes it.
    const deadline = Date.now() + 60_000;
    let task: { status: string } | undefined;
    while (Date.now() < deadline) {
      [task] = await database.database.db.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, taskId));
      if (task?.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(task?.status, survivor.output().slice(-3000)).toBe('completed');
    // The task reads completed one step before its run closes (end-<n>, then the trace): wait for
    // the state asserted rather than reading it once.
    let runs = await database.database.db.select().from(taskRuns).where(eq(taskRuns.taskId, taskId));
    while (runs.some((r) => r.status !== 'finished') && Date.now() < deadline + 30_000) {
      await new Promise((r) => setTimeout(r, 250));
      runs = await database.database.db.select().from(taskRuns).where(eq(taskRuns.taskId, taskId));
    }
    expect(runs.map((r) => r.status)).toEqual(['finished']);
    // The survivor still serves the task to its owner.
    expect((await call(survivor, `/tasks/${taskId}`, { key })).body.task.status).toBe('completed');
  });
});
