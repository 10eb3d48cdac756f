/**
 * The tasks section of `npm run bench` (issue 14, Performance), written under `tasks` in
 * bench/results.json. One throwaway PostgreSQL, Steward's production server (npm start's
 * scripts/start.ts, API only: STEWARD_PAGES=off, with its built-in executor) and, for the list,
 * a bare node:http + pg baseline (bench/tasks-bare-server.ts), all measured in this same run:
 *
 * - `list`: GET /api/tasks (the first page of 20 of one user's 10,000 tasks, seeded with SQL, every
 *   tenth with a pending cart) with a user key, autocannon on both servers for the same time, in
 *   alternating halves; `ratio` = Steward ÷ bare req/s. Both must write the same bytes.
 * - `processToModelMs`: POST /api/tasks/{id}/process on a fresh task → the first request arriving
 *   at the scripted model (loopback, answers at once). Both instants are read on this process's
 *   clock: the request is sent from here and the scripted model runs here.
 * - `fiveStepRunMs`: a run of 5 tool steps (4 × update_plan, then complete_task) with the instant
 *   scripted model: POST process → the task reads `completed`. complete_task makes that move in
 *   the fifth tool step's transaction, so that is when a client can see the task done; the row is
 *   polled every 2 ms straight from Postgres (the row GET /tasks/{id} reads, confirmed with one GET
 *   per run). The run's own closing steps (the run row `finished`, the trace) come after that
 *   instant and are reported as `runFinishedMs` beside it.
 *
 * Runs are measured one at a time (each starts when the previous one has fully ended), after
 * warm-up runs that are not counted.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { startScriptedModel, type ModelRequest, type ScriptedReply } from '../tests/helpers/scripted-model';
import { functionRegistered, sleep, spread, start, stop, waitReady, combine, load, type Load } from './processes';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const TASKS = 10_000;
const RUNS = Number(process.env.BENCH_TASK_RUNS ?? 40);
const WARMUP_RUNS = 3;
const MODEL = 'bench-model';

async function warm(url: string, key: string) {
  await autocannon({ url, connections: 10, amount: 1000, headers: { Authorization: `Bearer ${key}` } });
}

/** One API call to the Steward under test; anything but the expected status stops the bench. */
export async function api(base: string, p: string, key: string, opts: { method?: string; body?: unknown; as?: string; expect?: number } = {}) {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (opts.as) headers['X-User-Email'] = opts.as;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${base}/api${p}`, { method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const body = (await res.json()) as any;
  if (res.status !== (opts.expect ?? (res.status < 300 ? res.status : 200))) throw new Error(`${opts.method ?? 'GET'} ${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A provisioned, onboarded user with an assistant and a user-level key, made through the API. */
export async function benchUser(base: string, accountKey: string) {
  const email = 'bench-user@example.com';
  const { user } = await api(base, '/users/provision', accountKey, { body: { email } });
  await api(base, '/profile', accountKey, { method: 'PATCH', as: email, body: { timezone: 'Europe/Paris' } });
  await api(base, `/users/${user.id}/preferences/scheduling`, accountKey, {
    method: 'PUT',
    as: email,
    body: { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } },
  });
  await api(base, '/onboarding/mark-onboarded', accountKey, { as: email, body: {} });
  const { assistant } = await api(base, `/users/${user.id}/assistants`, accountKey, { as: email, body: { name: 'Ada' } });
  const { apiKey } = await api(base, '/api-keys', accountKey, { body: { label: 'bench user key', userId: user.id } });
  return { id: user.id as string, email, assistantId: assistant.id as string, key: apiKey.key as string };
}

export async function bench() {
  const pgServer = await startThrowawayDatabase('tasks_bench');
  const database = connect(pgServer.url, { max: 4 });
  const llm = await startScriptedModel();
  const { apiKey: accountKey, accountId } = await createAccount(database.db, 'Tasks bench');

  const env = {
    DATABASE_URL: pgServer.url,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    STEWARD_PAGES: 'off',
    STEWARD_HTTP: 'lean',
    STEWARD_MASTER_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_READS_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
    STEWARD_MODEL_BASE_URL: llm.baseUrl,
    STEWARD_MODEL_MEDIUM: MODEL,
  };
  const stewardPort = await freePort();
  const steward = start('scripts/start.ts', { ...env, PORT: String(stewardPort), HOST: '127.0.0.1' });
  const bareP = await freePort();
  const bare = start('bench/tasks-bare-server.ts', { ...env, PORT: String(bareP) });
  try {
    const base = `http://127.0.0.1:${stewardPort}`;
    await waitReady(`${base}/api/openapi.json`);
    await waitReady(`http://127.0.0.1:${bareP}/`);
    const user = await benchUser(base, accountKey);

    // 10,000 tasks of one user, a second apart, a quarter already done; every row carries a plan.
    await database.pool.query(
      `INSERT INTO tasks (id, account_id, user_id, assistant_id, title, description, status, completed_at, model_tier, plan, on_behalf_of, created_at, updated_at)
       SELECT substr(md5(random()::text || g::text), 1, 24), $1, $2, $3, 'Task number ' || g, 'Find a table for four near the office, Thursday evening.',
              CASE WHEN g % 4 = 0 THEN 'completed' ELSE 'pending' END, CASE WHEN g % 4 = 0 THEN now() END, 'medium',
              '[{"title":"Search","status":"done"},{"title":"Book","status":"pending"}]'::jsonb, $4,
              now() - make_interval(secs => ${TASKS} - g), now() - make_interval(secs => ${TASKS} - g)
       FROM generate_series(1, ${TASKS}) g`,
      [accountId, user.id, user.assistantId, user.email],
    );
    // Every tenth task holds a cart waiting for the person (its `pendingCart`): two live dispatches and a removed one.
    await database.pool.query(
      `WITH picked AS (SELECT id, account_id, user_id, assistant_id, created_at FROM tasks WHERE user_id = $1 AND title ~ '0$'),
       runs AS (INSERT INTO task_runs (id, task_id, account_id, status, trigger, model_tier, created_at)
                SELECT substr(md5('run' || id), 1, 24), id, account_id, 'finished', 'process', 'medium', created_at FROM picked RETURNING id, task_id),
       staged AS (INSERT INTO carts (id, account_id, task_id, run_id, user_id, assistant_id, status, content_hash, created_at)
                  SELECT substr(md5('cart' || p.id), 1, 24), p.account_id, p.id, r.id, p.user_id, p.assistant_id, 'pending_approval', md5(p.id), p.created_at
                  FROM picked p JOIN runs r ON r.task_id = p.id RETURNING id, account_id)
       INSERT INTO cart_dispatches (id, cart_id, account_id, index, type, platform, action_type, removed_at)
       SELECT substr(md5(c.id || i::text), 1, 24), c.id, c.account_id, i, 'email', 'email', 'send_email', CASE WHEN i = 2 THEN now() END
       FROM staged c CROSS JOIN generate_series(0, 2) i`,
      [user.id],
    );
    await database.pool.query('ANALYZE tasks');
    await functionRegistered(database.pool, 'task-run');

    const list = await benchList(base, `http://127.0.0.1:${bareP}`, user.key);
    const processToModelMs = await benchProcessToModel(base, user, llm, database.pool);
    const fiveStepRunMs = await benchFiveSteps(base, user, llm, database.pool);
    return { tasksOfUser: TASKS, list, processToModelMs, fiveStepRunMs };
  } finally {
    await stop(steward);
    await stop(bare);
    await llm.close();
    await database.close();
    await pgServer.stop();
  }
}

async function benchList(base: string, bareBase: string, key: string) {
  const stewardUrl = `${base}/api/tasks`;
  const bareUrl = `${bareBase}/api/tasks`;
  // Both write the same page as the same JSON; if Steward's task shape changes, the baseline must follow.
  const [ours, theirs] = await Promise.all([stewardUrl, bareUrl].map((u) => fetch(u, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.text())));
  if ((JSON.parse(ours) as { tasks?: unknown[] }).tasks?.length !== 20 || ours !== theirs) {
    throw new Error(`bench/tasks-bare-server.ts no longer writes what GET /api/tasks does:\n steward: ${ours.slice(0, 600)}\n bare:    ${theirs.slice(0, 600)}`);
  }
  await warm(bareUrl, key);
  await warm(stewardUrl, key);
  // Bare, Steward, Steward, bare, each for half the time: on a shared machine, load that comes
  // and goes during the measurement falls on both sides alike.
  const half = DURATION / 2;
  const bareRounds: Load[] = [];
  const stewardRounds: Load[] = [];
  bareRounds.push(await load(bareUrl, key, half));
  stewardRounds.push(await load(stewardUrl, key, half));
  stewardRounds.push(await load(stewardUrl, key, half));
  bareRounds.push(await load(bareUrl, key, half));
  const [bareLoad, stewardLoad] = [combine(bareRounds), combine(stewardRounds)];
  return {
    ratio: Number((stewardLoad.reqPerSec / bareLoad.reqPerSec).toFixed(3)),
    target: 0.6,
    steward: stewardLoad,
    bare: bareLoad,
  };
}

type BenchUser = Awaited<ReturnType<typeof benchUser>>;
type Pool = ReturnType<typeof connect>['pool'];

/** The scripted model's behaviour per run: how many update_plan calls before complete_task. */
function scriptRuns(llm: Awaited<ReturnType<typeof startScriptedModel>>, planSteps: () => number, arrivals: number[]) {
  llm.reset();
  llm.setFallback((req: ModelRequest): ScriptedReply => {
    arrivals.push(performance.now());
    const toolResults = req.messages.filter((m) => m.role === 'tool').length;
    if (toolResults < planSteps()) {
      return { toolCalls: [{ name: 'update_plan', arguments: { items: [{ text: `Step ${toolResults + 1}`, status: 'done' }, { text: 'Finish', status: 'pending' }] } }] };
    }
    return { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Done.' } }] };
  });
}


async function freshTask(base: string, user: BenchUser): Promise<string> {
  const { task } = await api(base, '/tasks', user.key, { body: { title: 'Book a table', assistant: user.assistantId }, expect: 201 });
  return task.id;
}

/** Waits (2 ms polls) until the run has fully ended: its row finished and the durable run completed. */
async function runEnded(pool: Pool, taskId: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const { rows } = await pool.query(
      `SELECT r.status, (SELECT count(*)::int FROM executor_runs e WHERE e.event->'data'->>'runId' = r.id AND e.status NOT IN ('completed','failed','cancelled')) AS open
       FROM task_runs r WHERE r.task_id = $1`,
      [taskId],
    );
    if (rows.length && rows.every((r) => ['finished', 'failed', 'cancelled'].includes(r.status) && r.open === 0)) {
      if (rows.some((r) => r.status !== 'finished')) throw new Error(`a bench run did not finish: ${JSON.stringify(rows)}`);
      return;
    }
    await sleep(2);
  }
  throw new Error(`the run of task ${taskId} did not end in time`);
}

async function benchProcessToModel(base: string, user: BenchUser, llm: Awaited<ReturnType<typeof startScriptedModel>>, pool: Pool) {
  const arrivals: number[] = [];
  scriptRuns(llm, () => 0, arrivals);
  const samples: number[] = [];
  for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
    const taskId = await freshTask(base, user);
    arrivals.length = 0;
    const sent = performance.now();
    await api(base, `/tasks/${taskId}/process`, user.key, { body: { message: 'Go ahead' } });
    for (const until = Date.now() + 30_000; !arrivals.length; await sleep(1)) {
      if (Date.now() > until) throw new Error(`the run of task ${taskId} never called the model`);
    }
    if (i >= WARMUP_RUNS) samples.push(arrivals[0] - sent);
    await runEnded(pool, taskId);
  }
  return { ...spread(samples), target: { p50: 100 } };
}

async function benchFiveSteps(base: string, user: BenchUser, llm: Awaited<ReturnType<typeof startScriptedModel>>, pool: Pool) {
  const arrivals: number[] = [];
  scriptRuns(llm, () => 4, arrivals);
  const completed: number[] = [];
  const finished: number[] = [];
  const modelCalls: number[] = [];
  for (let i = 0; i < WARMUP_RUNS + RUNS; i++) {
    const taskId = await freshTask(base, user);
    arrivals.length = 0;
    const sent = performance.now();
    await api(base, `/tasks/${taskId}/process`, user.key, { body: {} });
    let doneAt = 0;
    let finishedAt = 0;
    const until = Date.now() + 30_000;
    while (!finishedAt) {
      if (Date.now() > until) throw new Error(`five-step run of ${taskId} did not end`);
      const { rows } = await pool.query({ name: 'bench_task_state', text: `SELECT t.status, (SELECT r.status FROM task_runs r WHERE r.task_id = t.id LIMIT 1) AS run FROM tasks t WHERE t.id = $1`, values: [taskId] });
      const now = performance.now();
      if (!doneAt && rows[0]?.status === 'completed') doneAt = now;
      if (rows[0]?.run === 'finished') finishedAt = now;
      else await sleep(2);
    }
    const { task } = await api(base, `/tasks/${taskId}`, user.key);
    if (task.status !== 'completed' || task.plan.length !== 2) throw new Error(`five-step run ended as ${task.status}: ${JSON.stringify(task).slice(0, 300)}`);
    if (arrivals.length !== 5) throw new Error(`five-step run made ${arrivals.length} model calls`);
    await runEnded(pool, taskId);
    if (i < WARMUP_RUNS) continue;
    completed.push((doneAt || finishedAt) - sent);
    finished.push(finishedAt - sent);
    modelCalls.push(arrivals.length);
  }
  return { ...spread(completed), target: { p50: 500 }, endPoint: 'task status completed (POST process sent → row reads completed)', toolSteps: 5, modelCalls: modelCalls[0], runFinishedMs: spread(finished) };
}

if (process.argv[1]?.endsWith('tasks.ts')) {
  bench().then(
    (r) => {
      process.stdout.write(JSON.stringify(r, null, 2) + '\n');
      process.exit(0);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
