/**
 * The trust section of `npm run bench` (issue 27, Performance), under `trust` in bench/results.json:
 *
 * - `checkOverheadMs`: what the taint and budget checks add to one model call of a task run. The
 *   same model step (server/agent/runtime/model-step.ts: context, taint derivation and recording,
 *   budget reservation, the call to the scripted model on loopback, usage row and settlement) is
 *   timed in this process, alternately with the checks on and bypassed (benchSwitches, which
 *   nothing but a bench sets), on a tainted task (a contact's reply in its conversation) whose
 *   owner is covered by two budgets (the account's and their own; prices set, so calls cost
 *   credits and are reserved and settled). `p50` is the difference of the two medians. Far from
 *   the budgets' limits, as here, a call is settled after its step (server/budgets/settle-later.ts):
 *   each sample waits for it untimed before the next starts, and `settlementAfterStepMs` is how
 *   long it went on after the step returned (work off the call's path, not in `p50`).
 *
 * The task and its run are set up through the API of a production server (npm start, API only)
 * on a throwaway PostgreSQL; the steps then run here, against the same database.
 */
import { randomBytes } from 'node:crypto';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { benchSwitches } from '../server/agent/runtime/bench-switches';
import { callsSettled } from '../server/budgets/settle-later';
import { modelStep } from '../server/agent/runtime/model-step';
import { taskHost } from '../server/agent/runtime/task-host';
import { coreTaskTools } from '../server/agent/runtime/tools/core';
import { startScriptedModel } from '../tests/helpers/scripted-model';
import { apiServerEnv, spread, start, stop, waitReady } from './processes';
import { api, benchUser } from './tasks';

const CALLS = Number(process.env.BENCH_TRUST_CALLS ?? 300);
const WARMUP = 30;
const MODEL = 'bench-model';
const PRICES = JSON.stringify({ medium: { input: 1, output: 2 } });

export async function bench() {
  const pgServer = await startThrowawayDatabase('trust_bench');
  const database = connect(pgServer.url, { max: 4 });
  const llm = await startScriptedModel({ fallback: { text: 'Noted.' } });
  const { apiKey: accountKey, accountId } = await createAccount(database.db, 'Trust bench');
  const saved = { ...process.env };
  const env = {
    ...apiServerEnv(pgServer.url),
  };
  const port = await freePort();
  const steward = start('scripts/start.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitReady(`${base}/api/openapi.json`);
    const user = await benchUser(base, accountKey);
    // Budgets large enough never to block: the account's and the user's.
    if (!process.env.BENCH_TRUST_NO_BUDGETS) await api(base, '/budgets', accountKey, { body: { scope: 'account', limitCredits: 1e12 }, expect: 201 });
    if (!process.env.BENCH_TRUST_NO_BUDGETS) await api(base, '/budgets', accountKey, { body: { scope: 'user', scopeId: user.id, limitCredits: 1e12 }, expect: 201 });
    const { task } = await api(base, '/tasks', user.key, { body: { title: 'Answer the partner', assistant: user.assistantId }, expect: 201 });

    // A run in progress on a task whose conversation holds a contact's reply (untrusted content, already recorded).
    const runId = randomBytes(12).toString('hex');
    await database.pool.query(`UPDATE tasks SET status = 'executing' WHERE id = $1`, [task.id]);
    await database.pool.query(
      `INSERT INTO task_runs (id, task_id, account_id, user_id, status, trigger, model_tier, started_at) VALUES ($1, $2, $3, $4, 'running', 'process', 'medium', now())`,
      [runId, task.id, accountId, user.id],
    );
    await database.pool.query(
      `INSERT INTO task_activities (id, task_id, account_id, kind, platform, content, run_id) VALUES
         ($1, $2, $3, 'user', NULL, 'Please answer Bob about dinner.', $5),
         ($4, $2, $3, 'contact', 'email', E'Email from Bob <bob@partner.example>\nSubject: Dinner\n\nFriday at 8 works for me.', $5)`,
      [randomBytes(12).toString('hex'), task.id, accountId, randomBytes(12).toString('hex'), runId],
    );

    Object.assign(process.env, { STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: MODEL, STEWARD_MODEL_PRICES: PRICES });
    const tools = coreTaskTools();
    const samples = { on: [] as number[], off: [] as number[] };
    const afterStep: number[] = [];
    for (let i = 0; i < WARMUP + 2 * CALLS; i++) {
      // Alternating, so load that comes and goes on a shared machine falls on both sides alike.
      const on = i % 2 === 0;
      benchSwitches.trustChecks = on;
      const t0 = performance.now();
      const host = taskHost(runId);
      const turn = await modelStep(database.db, host, i + 1, tools);
      const ms = performance.now() - t0;
      if (turn.kind !== 'answer') throw new Error(`a bench model step answered ${turn.kind}`);
      // A settlement made after the step (far from the budgets' limits) is waited for here,
      // untimed, so that it does not land on the next sample; how long it went on is kept apart.
      const t1 = performance.now();
      await callsSettled([host.callRef(i + 1)]);
      if (i >= WARMUP) {
        samples[on ? 'on' : 'off'].push(ms);
        if (on) afterStep.push(performance.now() - t1);
      }
    }
    benchSwitches.trustChecks = true;
    const [withChecks, without] = [spread(samples.on), spread(samples.off)];
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const { rows } = await database.pool.query(`SELECT tainted FROM tasks WHERE id = $1`, [task.id]);
    if (!rows[0]?.tainted) throw new Error('the bench task was not tainted by its contact reply: the checks did not run');
    return {
      checkOverheadMs: {
        p50: Number((median(samples.on) - median(samples.off)).toFixed(3)),
        target: { p50: 1 },
        withChecks,
        withoutChecks: without,
        settlementAfterStepMs: spread(afterStep),
        what: 'one model step of a task run (context, taint, budget reservation, loopback model call, usage; settlement after the step), checks on vs bypassed, alternating',
      },
    };
  } finally {
    benchSwitches.trustChecks = true;
    for (const k of ['STEWARD_MODEL_BASE_URL', 'STEWARD_MODEL_MEDIUM', 'STEWARD_MODEL_PRICES']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await stop(steward);
    await llm.close();
    await database.close();
    await pgServer.stop();
  }
}
