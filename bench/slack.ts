/**
 * The Slack section of `npm run bench` (issue 33), under `channels` in bench/results.json:
 * Steward's production server (npm start, API only, built-in executor) against a loopback Slack
 * (tests/helpers/slack-fake.ts, which signs its callbacks as Slack does) and the scripted model.
 * An assistant's own Slack app gets its credentials and is installed; its owner is linked.
 *
 * - `slackAckP99Ms`: a signed event (a DM from the owner, which starts a chat turn) POSTed to
 *   /api/slack/events/{appId} → Steward's 200, measured by the sender, 50 events at once per
 *   round, rounds after a warm-up round (target p99 ≤ 300 ms). Routing and the turns happen
 *   after the answer and load the same machine meanwhile.
 * - `slackApproveMs`: a signed press of Approve on a posted approval card → Steward's 200, by which
 *   time the cart is released (approved, execution queued): checked after each press (target p50
 *   ≤ 100 ms). One cart at a time, each staged by a task run whose model calls send_email.
 */
import { randomBytes } from 'node:crypto';
import { connect } from '../db/client';
import { freePort, startThrowawayDatabase } from '../db/embedded';
import { createAccount } from '../server/accounts/service';
import { startScriptedModel, type ModelRequest } from '../tests/helpers/scripted-model';
import { startSlackFake, type Posted } from '../tests/helpers/slack-fake';
import { bindingOn } from '../tests/helpers/slack-cards';
import { sleep, spread, start, stop, waitReady } from './processes';
import { api, benchUser } from './tasks';

const CONCURRENT = 50;
const ROUNDS = Number(process.env.BENCH_SLACK_ROUNDS ?? 6);
const PRESSES = Number(process.env.BENCH_SLACK_PRESSES ?? 20);
const WARMUP_PRESSES = 3;
const MODEL = 'bench-model';
const TEAM = 'TBENCH';
const OWNER = 'UBENCHOWNER';

/** Task runs stage an email as the user (manual for a new user) and then stop; chat turns just answer. */
function script(req: ModelRequest) {
  const task = req.messages.some((m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('Task: '));
  const called = req.messages.some((m) => m.role === 'tool');
  if (task && !called) return { toolCalls: [{ name: 'send_email', arguments: { to: ['bob@partner.example'], subject: 'Bench', body: 'Hi Bob,\nA bench email.\nAda', asUser: true } }] };
  return { text: 'Noted.' };
}

export async function bench() {
  const pgServer = await startThrowawayDatabase('slack_bench');
  const database = connect(pgServer.url, { max: 4 });
  const slack = await startSlackFake();
  const llm = await startScriptedModel({ fallback: script });
  const { apiKey: accountKey } = await createAccount(database.db, 'Slack bench');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const steward = start('scripts/start.ts', {
    DATABASE_URL: pgServer.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    STEWARD_PAGES: 'off',
    STEWARD_PUBLIC_URL: base,
    STEWARD_MASTER_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_READS_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000000',
    RATE_LIMIT_ANONYMOUS_WRITES_PER_MINUTE: '1000000000',
    STEWARD_MODEL_BASE_URL: llm.baseUrl,
    STEWARD_MODEL_MEDIUM: MODEL,
    STEWARD_SLACK_API_URL: slack.apiUrl,
    SLACK_OAUTH_TOKEN_URL: slack.tokenUrl,
    STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32',
    STEWARD_SLACK_PROGRESS_AFTER_MS: '60000',
    STEWARD_CHANNEL_SWEEP_MS: '100',
  });
  try {
    await waitReady(`${base}/api/openapi.json`);
    const user = await benchUser(base, accountKey);
    // The assistant's own app: manifest, credentials from "Slack", installed, the owner linked.
    const { slackApp, manifest } = await api(base, `/assistants/${user.assistantId}/slack-apps`, user.key, { body: { kind: 'workspace', botDisplayName: 'Ada' } });
    const inSlack = slack.createApp(slackApp.id);
    await api(base, `/slack-apps/${slackApp.id}/credentials`, user.key, { method: 'PUT', body: inSlack });
    const started = await fetch(`${base}/api/oauth/slack/assistant/authorize?assistantId=${user.assistantId}`, { headers: { Authorization: `Bearer ${user.key}` }, redirect: 'manual' });
    const opened = await fetch(started.headers.get('location')!, { redirect: 'manual' });
    const state = new URL(opened.headers.get('location')!).searchParams.get('state')!;
    const code = slack.grant({ team: TEAM, authedUser: OWNER, botUserId: 'UBENCHBOT' });
    const done = await fetch(`${base}/api/oauth/callback/slack?code=${code}&state=${encodeURIComponent(state)}`, { headers: { cookie: opened.headers.get('set-cookie')!.split(';')[0]! } });
    if (done.status !== 200) throw new Error(`the Slack install failed: ${done.status} ${await done.text()}`);
    const eventsUrl = manifest.eventsUrl as string;
    const interactivityUrl = manifest.manifestJson.settings.interactivity.request_url as string;

    // Acknowledgements: rounds of 50 signed DMs at once.
    let n = 0;
    const dmEvent = () => {
      const ts = `${Math.floor(Date.now() / 1000)}.${String(++n).padStart(6, '0')}`;
      return { team: TEAM, event: { type: 'message', channel_type: 'im', channel: 'DBENCH', user: OWNER, text: `Bench message ${n}`, ts, event_ts: ts } };
    };
    const acks: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => slack.event(eventsUrl, inSlack.signingSecret, dmEvent())));
      const bad = answers.find((a) => a.status !== 200);
      if (bad) throw new Error(`an event was answered ${bad.status}: ${bad.text}`);
      if (round > 0) acks.push(...answers.map((a) => a.ms));
      // The round's events routed and their turns answered before the next round: every round starts alike.
      await waitFor(async () => {
        const { rows } = await database.pool.query(
          `SELECT (SELECT count(*) FROM channel_events WHERE status = 'received')::int AS pending, (SELECT count(*) FROM chat_turns WHERE status IN ('queued', 'running'))::int AS turns`,
        );
        return rows[0].pending === 0 && rows[0].turns === 0 ? true : null;
      }, 120_000);
    }

    // Presses: one cart at a time, staged by a task run, posted as a card, approved by the owner.
    const approve: number[] = [];
    for (let i = 0; i < WARMUP_PRESSES + PRESSES; i++) {
      const { task } = await api(base, '/tasks', user.key, { body: { title: `Bench cart ${i}`, assistant: user.assistantId } });
      await api(base, `/tasks/${task.id}/process`, user.key, { body: { message: 'Write to Bob' } });
      const { card, cartId } = await waitFor(async () => {
        const { rows } = await database.pool.query(`SELECT id FROM carts WHERE task_id = $1 AND status = 'pending_approval'`, [task.id]);
        const cartId = rows[0]?.id as string | undefined;
        if (!cartId) return null;
        // A press counts only on a card Steward knows it posted (its ts stored once Slack answered the
        // post): under load the fake records the card a moment before that, and a press then is refused.
        // The card's buttons carry the post's id (its binding).
        const { rows: stored } = await database.pool.query(`SELECT id FROM channel_approval_posts WHERE cart_id = $1 AND ref IS NOT NULL`, [cartId]);
        const bindings = new Set(stored.map((r: { id: string }) => r.id));
        const posted = slack.posted.find((m: Posted) => bindings.has(bindingOn(m)));
        return posted ? { card: posted, cartId } : null;
      });
      const pressed = await slack.press(interactivityUrl, inSlack.signingSecret, { team: TEAM, user: OWNER, message: card, actionId: 'steward_cart_approve' });
      const { rows } = await database.pool.query(`SELECT status FROM carts WHERE id = $1`, [cartId]);
      if (pressed.status !== 200 || !['approved', 'executing', 'executed'].includes(rows[0]?.status)) throw new Error(`press ${i}: ${pressed.status}, cart ${rows[0]?.status}`);
      if (i >= WARMUP_PRESSES) approve.push(pressed.ms);
    }
    return {
      slackAckP99Ms: { ...spread(acks), concurrent: CONCURRENT, target: { p99: 300 } },
      slackApproveMs: { ...spread(approve), target: { p50: 100 } },
    };
  } finally {
    await stop(steward);
    await slack.close();
    await llm.close();
    await database.close();
    await pgServer.stop();
  }
}

async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(20)) {
    const hit = await probe();
    if (hit) return hit;
  }
  throw new Error(`timed out after ${timeoutMs} ms`);
}
