import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHandoffs, taskRuns, tasks } from '@/db/schema';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { startProductionServer, type ProductionServer } from '../helpers/production-server';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';

/**
 * No lost run (issue 31): the production server is SIGKILLed after the transaction that queued a
 * run committed and before the run's event reached the engine. The hold is the database's, not the
 * server's: the test locks the table the engine records events in, so the server's send waits
 * there; the kill ends it, and the send never lands. The restarted server's outbox sweep sends the
 * run, once, and the task completes.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let llm: ScriptedModel;
let server: ProductionServer | undefined;
const MODEL = 'scripted-outbox';
const env = () => ({ STEWARD_EXECUTOR_LEASE_MS: '3000', STEWARD_HANDOFF_GRACE_MS: '2000', STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: MODEL });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${server ? `\n${server.output().slice(-3000)}` : ''}`);
    await sleep(100);
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  llm = await startScriptedModel();
}, 120_000);
afterAll(async () => {
  await server?.kill();
  await llm?.close();
  await database?.drop();
});

describe('the outbox of runs handed to the engine', () => {
  it('a run whose send died with its process (SIGKILL between the commit and the send) is sent after the restart and completes once', { timeout: 180_000 }, async () => {
    server = await startProductionServer(database, env());
    const acct = await newAccount(server, 'Outbox');
    const u = await newUser(server, acct);
    const key = await userKey(server, acct, u.id);
    const hired = await call(server, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    const created = await call(server, '/tasks', { key, body: { title: 'Book a table', assistant: hired.body.assistant.id } });
    const taskId = created.body.task.id as string;
    llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Booked' } }] });

    // The hold: while this transaction holds the lock, the engine cannot record any event.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE executor_events IN EXCLUSIVE MODE');
    const processed = await call(server, `/tasks/${taskId}/process`, { key, body: { message: 'For two, Friday' } });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    const runId = processed.body.process.executionId as string;
    // The run is committed, and the server's send is waiting on the lock: kill it right there.
    const blocked = await until('the send to wait on the lock', async () => {
      const { rows } = await holder.query<{ pid: number }>(
        `SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE NOT l.granted AND l.relation = 'executor_events'::regclass`,
      );
      return rows.length ? rows : null;
    });
    await server.kill('SIGKILL');
    // The dead process's waiting statements would still run once the lock is gone: end them first.
    for (const { pid } of blocked) await holder.query('SELECT pg_terminate_backend($1)', [pid]);
    await holder.query('ROLLBACK');
    await holder.end();

    const db = database.database.db;
    const [run] = await db.select().from(taskRuns).where(eq(taskRuns.id, runId));
    expect(run.status).toBe('queued');
    const [handoff] = await db.select().from(engineHandoffs).where(eq(engineHandoffs.id, runId));
    expect(handoff).toMatchObject({ kind: 'task_run', sentAt: null });
    const received = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM executor_events WHERE data->>'runId' = ${runId}`);
    expect(received.rows[0].n, 'the event never reached the engine').toBe(0);

    server = await startProductionServer(database, env());
    await until('the task to complete', async () => (await db.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, taskId)))[0]?.status === 'completed');
    // The task reads completed one step before its run closes: wait for the state asserted.
    const runs = await until('the run to finish', async () => {
      const rows = await db.select().from(taskRuns).where(eq(taskRuns.taskId, taskId));
      return rows.every((r) => r.status === 'finished') ? rows : null;
    });
    expect(runs.map((r) => r.id)).toEqual([runId]);
    const started = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM executor_runs WHERE function_id LIKE '%task-run' AND event->'data'->>'runId' = ${runId}`);
    expect(started.rows[0].n, 'one engine run for the task run').toBe(1);
    await until('the sweep to stamp the handoff', async () => (await db.select().from(engineHandoffs).where(eq(engineHandoffs.id, runId)))[0]?.sentAt);
    expect(llm.requests.filter((r) => JSON.stringify(r.messages).includes('Book a table'))).toHaveLength(1);
  });

  it('a handover that succeeds is stamped at once, and the sweep never sends it again', { timeout: 120_000 }, async () => {
    server ??= await startProductionServer(database, env());
    const acct = await newAccount(server, 'Stamped');
    const u = await newUser(server, acct);
    const key = await userKey(server, acct, u.id);
    const hired = await call(server, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    const created = await call(server, '/tasks', { key, body: { title: 'Call the plumber', assistant: hired.body.assistant.id } });
    llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Called' } }] });
    const processed = await call(server, `/tasks/${created.body.task.id}/process`, { key, body: { message: 'Today' } });
    const runId = processed.body.process.executionId as string;
    const db = database.database.db;
    await until('the handoff to be stamped', async () => (await db.select().from(engineHandoffs).where(eq(engineHandoffs.id, runId)))[0]?.sentAt);
    await until('the run to finish', async () => (await db.select().from(taskRuns).where(eq(taskRuns.id, runId)))[0]?.status === 'finished');
    // A sweep now finds nothing of it to send.
    await server.kill('SIGTERM');
    server = await startProductionServer(database, env());
    await sleep(4_000);
    const started = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM executor_runs WHERE function_id LIKE '%task-run' AND event->'data'->>'runId' = ${runId}`);
    expect(started.rows[0].n).toBe(1);
  });
});
