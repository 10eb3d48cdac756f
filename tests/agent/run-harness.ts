import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { connect } from '@/db/client';
import { taskRuns, tasks } from '@/db/schema';
import { startExecutor, type Executor } from '@/server/executor/executor';
import { startIngress } from '@/server/executor/ingress';
import { TaskEnvelope } from '@/server/tasks/contracts';
import { call, newUser, userKey, type AccountFixture } from '../helpers/client';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { useTestServer } from '../helpers/server';
import { eventKey, mounts, serveAndRegister, signingKey, until } from '../executor/harness';

/**
 * The set-up of tests that run the production Inngest functions through the built-in executor
 * against the scripted model (as tests/agent/task-run.int.test.ts does): a test server, the
 * ingress and executor, the runtime's dispatcher, and STEWARD_MODEL_* pointing at the script.
 */
export const MODEL = 'scripted-medium-1';
const MODEL_VARIABLES = ['STEWARD_MODEL_BASE_URL', 'STEWARD_MODEL_API_KEY', 'STEWARD_MODEL_LOW', 'STEWARD_MODEL_MEDIUM', 'STEWARD_MODEL_HIGH', 'STEWARD_MODEL_ULTRA'];

export function useRunHarness() {
  const app = useTestServer({ mounts });
  const db = () => app().database.db;
  const state = {} as { llm: ScriptedModel; executor: Executor; ingress: Awaited<ReturnType<typeof startIngress>>; wakeupsDue: () => Promise<void> };
  let ingressDatabase: ReturnType<typeof connect> | undefined;
  const saved = Object.fromEntries(MODEL_VARIABLES.map((n) => [n, process.env[n]]));

  beforeAll(async () => {
    state.llm = await startScriptedModel();
    // As npm start does: the ingress has connections of its own (see scripts/start.ts).
    ingressDatabase = connect(app().database.pool.options.connectionString as string, { max: 4 });
    state.ingress = await startIngress({ db: ingressDatabase.db, signingKey, eventKey });
    Object.assign(process.env, {
      STEWARD_EXECUTOR_URL: state.ingress.url,
      INNGEST_SIGNING_KEY: signingKey,
      INNGEST_EVENT_KEY: eventKey,
      DATABASE_URL: app().database.pool.options.connectionString as string,
    });
    (await import('@/server/compose')).composeRuntime();
    const { inngest } = await import('@/inngest/client');
    const { functions } = await import('@/inngest/functions');
    await serveAndRegister(app(), inngest, functions);
    state.executor = await startExecutor({ db: db(), databaseUrl: app().database.pool.options.connectionString as string, signingKey, idleMs: 100 });
    const { events } = await import('@/inngest/events');
    state.wakeupsDue = async () => {
      await inngest.send(events.tasksWakeupsDue.create({}));
    };
  });
  afterAll(async () => {
    await state.executor?.stop();
    await state.ingress?.close();
    await ingressDatabase?.close();
    await state.llm?.close();
    const { registerRunDispatcher } = await import('@/server/tasks/runs');
    registerRunDispatcher(null);
    for (const [n, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }
  });
  beforeEach(() => {
    state.llm.reset();
    state.llm.setFallback(null);
    for (const n of MODEL_VARIABLES) delete process.env[n];
    Object.assign(process.env, { STEWARD_MODEL_BASE_URL: state.llm.baseUrl, STEWARD_MODEL_MEDIUM: MODEL });
  });

  async function person(acct: AccountFixture) {
    const u = await newUser(app(), acct);
    const key = await userKey(app(), acct, u.id);
    const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
    expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
    return { ...u, key, assistantId: hired.body.assistant.id as string };
  }

  async function createTask(p: Awaited<ReturnType<typeof person>>, body: Record<string, unknown> = {}) {
    const created = await call(app(), '/tasks', { key: p.key, body: { title: 'Book a table', assistant: p.assistantId, ...body } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return TaskEnvelope.parse(created.body).task.id;
  }

  /** POST /tasks then /process: the run's id (executionId). */
  async function startTask(p: Awaited<ReturnType<typeof person>>, body: Record<string, unknown> = {}, message?: string) {
    const taskId = await createTask(p, body);
    const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: message ? { message } : {} });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    return { taskId, runId: processed.body.process.executionId as string };
  }

  const runRow = async (runId: string) => (await db().select().from(taskRuns).where(eq(taskRuns.id, runId)))[0];
  const runsOf = (taskId: string) => db().select().from(taskRuns).where(eq(taskRuns.taskId, taskId)).orderBy(taskRuns.createdAt);
  const taskRow = async (taskId: string) => (await db().select().from(tasks).where(eq(tasks.id, taskId)))[0];
  const ended = (runId: string) =>
    until(async () => {
      const r = await runRow(runId);
      return r && ['finished', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 30_000);

  /** No model anywhere: runs end with model_not_configured. */
  const withoutModel = () => {
    for (const n of MODEL_VARIABLES) delete process.env[n];
  };

  return { app, db, state, person, createTask, startTask, runRow, runsOf, taskRow, ended, until, withoutModel };
}
