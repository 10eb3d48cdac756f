/**
 * The console's section of `npm run bench` (issue 45, Performance: `console.overviewMs`), written
 * under `console` in bench/results.json. One throwaway PostgreSQL; Steward's production server
 * (scripts/start.ts with pages: the lean /api kernel, Next.js behind it); an account with 10,000
 * tasks (500 of them waiting on their user), a run per task (one in fifty failed) with a charged
 * model call each, seeded with SQL; a console member (add-console-member's service) with a
 * session. Measured in this same run, sequential requests after a warm-up:
 *
 * - `overviewMs`: GET /console with the member's session cookie: the server render of the
 *   overview (users, organizations, teams, tasks, spend, failures) in the console's frame.
 *   Target p50 ≤ 50 ms. Against `queryMs`: the overview's one statement alone, from this process.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { users } from '../db/schema';
import { createAccount } from '../server/accounts/service';
import { ADMIN_CLI } from '../server/audit/record';
import { addConsoleMember } from '../server/console/members';
import { consoleOverview } from '../server/console/overview';
import { sessionSetCookie } from '../server/sign-in/session';
import { start, stop, waitReady } from './processes';
import { getPage, sampleSequential } from './page-timing';
import { benchUser } from './tasks';

const TASKS = 10_000;
const SAMPLES = Number(process.env.BENCH_CONSOLE_SAMPLES ?? 60);
const WARMUP = 8;

type Pool = ReturnType<typeof connect>['pool'];

/** 10,000 tasks a second apart (500 waiting on their user), a run each (every 50th failed), a charged model call per run. */
async function seed(pool: Pool, accountId: string, user: { id: string; email: string; assistantId: string }) {
  await pool.query(
    `INSERT INTO tasks (id, account_id, user_id, assistant_id, title, status, completed_at, model_tier, on_behalf_of, alarm_status, alarm_wake_at, created_at, updated_at)
     SELECT substr(md5('t' || g::text), 1, 24), $1, $2, $3, 'Task number ' || g,
            CASE WHEN g <= 500 THEN 'awaiting_user_input' WHEN g % 50 = 0 THEN 'error' WHEN g % 3 = 0 THEN 'completed' ELSE 'pending' END,
            CASE WHEN g > 500 AND g % 3 = 0 THEN now() END, 'medium', $4,
            CASE WHEN g <= 500 THEN 'set' END, CASE WHEN g <= 500 THEN now() + interval '1 day' END,
            now() - make_interval(secs => ${TASKS} - g), now() - make_interval(secs => ${TASKS} - g)
     FROM generate_series(1, ${TASKS}) g`,
    [accountId, user.id, user.assistantId, user.email],
  );
  await pool.query(
    `INSERT INTO task_runs (id, task_id, account_id, user_id, status, trigger, model_tier, error, created_at)
     SELECT substr(md5('r' || id), 1, 24), id, account_id, user_id, CASE WHEN status = 'error' THEN 'failed' ELSE 'finished' END, 'process', 'medium',
            CASE WHEN status = 'error' THEN 'The model endpoint answered 500' END, created_at
     FROM tasks WHERE account_id = $1`,
    [accountId],
  );
  await pool.query(
    `INSERT INTO task_model_calls (id, task_id, run_id, account_id, seq, model_tier, model, input_tokens, output_tokens, charged_credits, is_billable, created_at)
     SELECT substr(md5('c' || r.id), 1, 24), r.task_id, r.id, r.account_id, 0, 'medium', 'bench-model', 1200, 300, 0.0125, true, r.created_at
     FROM task_runs r WHERE r.account_id = $1`,
    [accountId],
  );
  await pool.query('ANALYZE tasks; ANALYZE task_runs; ANALYZE task_model_calls');
}

/** p50 of `fn` over SAMPLES sequential calls after WARMUP. */
const sample = (fn: () => Promise<unknown>) => sampleSequential(fn, SAMPLES, WARMUP);
const get = getPage;

export async function bench() {
  const pgServer = await startThrowawayDatabase('console_bench');
  const database = connect(pgServer.url, { max: 4 });
  const { apiKey: accountKey, accountId } = await createAccount(database.db, 'Console bench');
  const secret = randomBytes(32).toString('base64url');
  process.env.NEXTAUTH_SECRET = secret;
  const env = {
    DATABASE_URL: pgServer.url,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    STEWARD_HTTP: 'lean',
    NEXTAUTH_SECRET: secret,
    STEWARD_MASTER_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_READS_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
  };
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const steward = start('scripts/start.ts', { ...env, PORT: String(port), HOST: '127.0.0.1', STEWARD_PUBLIC_URL: base });
  try {
    await waitReady(`${base}/api/openapi.json`);
    await waitReady(`${base}/sign-in`);
    const user = await benchUser(base, accountKey);
    await seed(database.pool, accountId, user);
    const { member } = await addConsoleMember(database.db, ADMIN_CLI, { accountId, email: 'bench-developer@example.com', role: 'developer' });
    const [row] = await database.db.select().from(users).where(eq(users.id, member.userId));
    const cookie = (await sessionSetCookie(database.db, row!, 'email', false)).split(';')[0]!;

    const overview = await sample(() => get(`${base}/console`, { Cookie: cookie }, 'Spend this month'));
    const query = await sample(() => consoleOverview(database.db, accountId, ADMIN_CLI));
    return { tasksOfAccount: TASKS, overviewMs: { ...overview, target: { p50: 50 }, queryMs: query } };
  } finally {
    await stop(steward);
    await database.close();
    await pgServer.stop();
  }
}

if (process.argv[1]?.endsWith('console.ts')) {
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
