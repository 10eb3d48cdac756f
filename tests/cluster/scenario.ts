import { sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { newAccount } from '../helpers/client';
import type { TestServer } from '../helpers/server';
import { openStream, type OpenStream, type Sse } from '../chats/turn-harness';
import { apiClient, Attempts, failed, liveView, person, sendMail, sleep, startTask, untilAnswered, type Person } from './load';
import { startClusterWorld, toolSteps, type ClusterWorld } from './world';

/*
 * Kill -9 under load (issue 47): HAProxy in front of three npm start processes on one PostgreSQL
 * (world.ts). While clients read and write through the API, start tasks whose runs call the model,
 * send mail to their assistants over SMTP, stream chat turns and hand the workspace browser to a
 * person, the process holding that person's browser (and serving at least one of the chat streams)
 * is killed with SIGKILL, then started again. Afterwards everything is counted:
 *
 * - runs: every task's run finished, none twice (a step cut by the kill may run again: the
 *   soak's at-least-once inside a step, reported as reexecutedSteps);
 * - inbound: every message the load balancer's SMTP port accepted (250) is stored once and
 *   answered;
 * - streams: every chat stream cut by the kill resumes with Last-Event-ID at another process and
 *   gets exactly the events it missed, ending with the reply;
 * - webhooks: every completed task's task.status_changed delivered;
 * - the workspace: the live view opened before the kill worked through another process, and after
 *   it a new one starts the browser elsewhere (no 503 workspace_busy);
 * - requests: the only failures are those in flight at the kill.
 */

/** Caps: tasks and mails go on (one every 0.7 s and 1.5 s) until the load stops, a few seconds after the restart, or until these many. */
export type ClusterOptions = { tasks?: number; mails?: number; chats?: number; apiClients?: number; log?: (m: string) => void };

type Stream = { key: string; chatId: string; executionId: string; server: string | null; first: OpenStream; resumed: OpenStream | null; resumedServer: string | null; openedAt: number };

export async function runClusterScenario(database: { url: string; database: Database }, o: ClusterOptions = {}) {
  const TASKS = o.tasks ?? 60;
  const MAILS = o.mails ?? 20;
  const CHATS = o.chats ?? 3;
  const log = o.log ?? (() => undefined);
  const began = Date.now();
  const world = await startClusterWorld(database);
  log(`world up in ${Math.round((Date.now() - began) / 1000)} s: ${world.nodes.map((n) => `${world.nameOf(n)}=${n.port}`).join(', ')}`);
  try {
    return await scenario(world, { TASKS, MAILS, CHATS, API: o.apiClients ?? 3, log, began });
  } finally {
    await world.stop();
  }
}

async function scenario(world: ClusterWorld, c: { TASKS: number; MAILS: number; CHATS: number; API: number; log: (m: string) => void; began: number }) {
  const { log } = c;
  const db = world.lb.database.db;
  const lb = world.lb as unknown as TestServer;
  const account = await newAccount(lb, 'Cluster');
  const hook = await fetch(`${world.lb.baseUrl}/webhooks`, { method: 'POST', headers: { Authorization: `Bearer ${account.key}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: world.webhookUrl, events: ['task.status_changed'] }) });
  if (hook.status !== 201) throw new Error(`webhook endpoint: ${hook.status} ${await hook.text()}`);
  const people: Person[] = [];
  for (let i = 0; i < 3; i++) people.push(await person(world, account));
  const owner = await person(world, account);

  const attempts = new Attempts();
  let stopping = false;
  const stop = () => stopping;
  const api = Array.from({ length: c.API }, () => apiClient(world, people, attempts, stop));
  const tasks: { taskId: string; marker: string }[] = [];
  const taskLoop = (async () => {
    for (let i = 0; i < c.TASKS && !stopping; i++) {
      const marker = `[cluster-task ${i}]`;
      tasks.push({ marker, taskId: await startTask(world, people[i % people.length]!, attempts, marker) });
      await sleep(700);
    }
  })();
  const mails: { messageId: string; subject: string; marker: string }[] = [];
  const mailLoop = (async () => {
    for (let i = 0; i < c.MAILS && !stopping; i++) {
      const marker = `[cluster-mail ${i}]`;
      mails.push({ marker, ...(await sendMail(world, people[i % people.length]!, attempts, marker)) });
      await sleep(1500);
    }
  })();

  // The workspace: the owner's task asks for a handoff; the browser runs in one process, the victim.
  const handoffTask = await startTask(world, owner, attempts, '[cluster-handoff]');
  const handoff = await eventually('the handoff', async () => {
    const r = await attempts.http(world, 'read /workspace/handoff/active', '/workspace/handoff/active', { key: owner.key });
    return r.body?.handoffs?.find((h: { taskId: string }) => h.taskId === handoffTask) as { id: string } | undefined;
  });
  const holderUrl = (await db.execute<{ url: string }>(sql`SELECT n.url FROM workspace_holders h JOIN steward_nodes n ON n.id = h.node_id WHERE h.user_id = ${owner.id}`)).rows[0]?.url;
  const victim = world.nodes.find((n) => n.url === holderUrl);
  if (!victim) throw new Error('no process holds the handoff’s browser');
  const victimName = world.nameOf(victim);
  log(`the browser runs in ${victimName}: it is the one to kill`);
  const firstSession = await untilAnswered(attempts, world, 'write /workspace/handoff/session', `/workspace/handoff/${handoff.id}/session`, { key: owner.key, body: {} });
  const viewBefore = liveView(world, firstSession.body.sessionUrl);
  const viewBeforeOpened = await viewBefore.opened;
  await viewBefore.next((m) => m.type === 'frame');
  const viewBeforeStatus = (await viewBefore.next((m) => m.type === 'status' && m.browser === 'running')).browser as string;

  // Chat streams, their model calls held: at least one is served by the victim.
  const streams: Stream[] = [];
  for (let k = 0; streams.length < c.CHATS || !streams.some((s) => s.server === victimName); k++) {
    if (k > 24) throw new Error(`no chat stream reached ${victimName} (HAProxy: ${JSON.stringify(await world.haproxy.states())})`);
    // The victim is busy starting the browser: a slow health check or two takes it out of the
    // rotation for a moment (fall 2, rise 2), and a stream opened then cannot reach it.
    await world.haproxy.waitFor(victimName, 'UP');
    const p = people[k % people.length]!;
    const created = await untilAnswered(attempts, world, 'write /chats', '/chats', { key: p.key, body: { assistantId: p.assistantId } }, [201]);
    const chatId = created.body.chat.id as string;
    const openedAt = Date.now();
    const first = openStream(lb, `/chats/${chatId}/process`, { key: p.key, body: { message: { content: `[cluster-chat ${k}] Plan my week` } } });
    const headers = await first.headers;
    const opened = await first.waitFor((e) => e.data?.executionId, 'the first event', 30_000);
    streams.push({ key: p.key, chatId, executionId: opened.data.executionId as string, server: (headers['x-steward-server'] as string) ?? null, first, resumed: null, resumedServer: null, openedAt });
  }
  log(`chat streams on ${streams.map((s) => s.server).join(', ')}; load running`);
  await sleep(3_000);

  // The kill.
  const killAt = Date.now();
  await victim.kill('SIGKILL');
  // Until the process has exited it still answers: what it took on until then was in flight too.
  const exitedAt = Date.now();
  log(`killed ${victimName} at ${Math.round((killAt - c.began) / 1000)} s (exited ${exitedAt - killAt} ms later)`);
  await world.haproxy.waitFor(victimName, 'DOWN');
  const downAfterMs = Date.now() - killAt;

  // Streams the kill cut resume where they stopped, through the load balancer (so at another process).
  for (const s of streams) {
    if (!s.first.ended()) continue;
    const seen = s.first.events.filter((e) => e.id !== null).map((e) => e.id as number);
    s.resumed = openStream(lb, `/chats/${s.chatId}/runs/${s.executionId}/events`, { key: s.key, headers: { 'Last-Event-ID': String(Math.max(0, ...seen)) } });
    s.resumedServer = ((await s.resumed.headers)['x-steward-server'] as string) ?? null;
  }
  world.releaseChats();

  // The person's browser went with the victim: a new session starts it in another process.
  const viewBeforeCut = await eventually('the first live view to close', async () => viewBefore.closedAt() ?? null, 30_000);
  attempts.add('live view', killAt - 1, 0, 'cut by the kill');
  attempts.list.at(-1)!.end = viewBeforeCut;
  const secondSession = await untilAnswered(attempts, world, 'write /workspace/handoff/session', `/workspace/handoff/${handoff.id}/session`, { key: owner.key, body: {} });
  const viewAfter = liveView(world, secondSession.body.sessionUrl);
  const viewAfterOpened = await viewAfter.opened;
  const viewAfterStatus = (await viewAfter.next((m) => m.type === 'status' && (m.browser === 'running' || m.browser === 'unavailable'))).browser as string;
  await viewAfter.next((m) => m.type === 'frame');
  const newHolderUrl = (await db.execute<{ url: string }>(sql`SELECT n.url FROM workspace_holders h JOIN steward_nodes n ON n.id = h.node_id WHERE h.user_id = ${owner.id}`)).rows[0]?.url;
  const newHolder = world.nodes.find((n) => n.url === newHolderUrl);
  viewAfter.send({ type: 'complete' });
  const viewAfterClosed = (await viewAfter.next((m) => m.type === 'closed')).status as string;
  viewAfter.ws.close();

  // The victim comes back (a supervisor restarts it); the load goes on a little, then stops.
  const restartAt = Date.now();
  await victim.restart();
  await world.haproxy.waitFor(victimName, 'UP');
  const backAfterMs = Date.now() - killAt;
  log(`${victimName} back after ${Math.round(backAfterMs / 1000)} s (restart took ${Math.round((Date.now() - restartAt) / 1000)} s)`);
  await sleep(3_000);
  stopping = true;
  await Promise.all([...api, taskLoop, mailLoop]);

  // Everything settles: runs finish, mail is answered, streams end, webhooks arrive.
  const settleStart = Date.now();
  const ids = [...tasks.map((t) => t.taskId), handoffTask];
  const statusOf = async () => new Map((await db.execute<{ id: string; status: string }>(sql`SELECT id, status FROM tasks WHERE id = ANY(${sql.raw(`ARRAY[${ids.map((i) => `'${i}'`).join(',')}]::text[]`)})`)).rows.map((r) => [r.id, r.status]));
  const settled = async () => {
    const statuses = await statusOf();
    const done = ids.every((id) => statuses.get(id) === 'completed');
    const answered = mails.every((m) => world.sentMail.some((s) => s.subject.includes(m.marker)));
    const streamsDone = streams.every((s) => (s.resumed ?? s.first).ended());
    const hooks = tasks.every((t) => world.webhooks.some((w) => w.data.taskId === t.taskId && w.data.to === 'completed'));
    return done && answered && streamsDone && hooks;
  };
  await eventually('everything to settle', settled, 120_000).catch((e: Error) => log(e.message));
  const settleSeconds = Math.round((Date.now() - settleStart) / 1000);

  return {
    ...(await count(world, { tasks, handoffTask, mails, streams, attempts, killAt, exitedAt, victimName })),
    workspace: {
      holderKilled: victimName,
      liveViewBefore: { opened: viewBeforeOpened, status: viewBeforeStatus },
      liveViewAfter: { opened: viewAfterOpened, status: viewAfterStatus, answered: viewAfterClosed },
      newHolder: newHolder ? world.nameOf(newHolder) : null,
    },
    timings: { exitedAfterMs: exitedAt - killAt, downDetectedMs: downAfterMs, backUpMs: backAfterMs, settleSeconds, totalSeconds: Math.round((Date.now() - c.began) / 1000) },
  };
}

async function eventually<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  for (const until = Date.now() + timeoutMs; ; await sleep(250)) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
  }
}

/** What happened to every piece of work, from the database and from what the clients saw. */
async function count(
  world: ClusterWorld,
  w: { tasks: { taskId: string; marker: string }[]; handoffTask: string; mails: { messageId: string; marker: string }[]; streams: Stream[]; attempts: Attempts; killAt: number; exitedAt: number; victimName: string },
) {
  const db = world.lb.database.db;
  const list = (xs: string[]) => sql.raw(`ARRAY[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(',')}]::text[]`);
  const ids = [...w.tasks.map((t) => t.taskId), w.handoffTask];
  const runs = (
    await db.execute<{ task_id: string; status: string; runs: number; finished: number }>(sql`
      SELECT t.id AS task_id, t.status, count(r.id)::int AS runs, count(r.id) FILTER (WHERE r.status = 'finished')::int AS finished
      FROM tasks t LEFT JOIN task_runs r ON r.task_id = t.id WHERE t.id = ANY(${list(ids)}) GROUP BY t.id, t.status`)
  ).rows;
  const expectedRuns = (taskId: string) => (taskId === w.handoffTask ? 2 : 1);
  const lostRuns = ids.length - runs.filter((r) => r.status === 'completed' && r.finished === r.runs && r.runs >= expectedRuns(r.task_id)).length;
  const duplicateRuns =
    runs.filter((r) => r.runs > expectedRuns(r.task_id)).length +
    Number(
      (
        await db.execute<{ n: number }>(sql`
          SELECT count(*)::int AS n FROM (SELECT event->'data'->>'runId' FROM executor_runs WHERE function_id LIKE '%task-run' AND event->'data'->>'taskId' = ANY(${list(ids)}) GROUP BY 1 HAVING count(*) > 1) d`)
      ).rows[0]?.n ?? 0,
    );
  // Model calls per (task, step): more than one means a step the kill cut ran again (at-least-once inside a step).
  const perStep = new Map<string, number>();
  for (const r of world.llm.requests) {
    const marker = /\[cluster-task \d+\]/.exec(JSON.stringify(r.messages))?.[0];
    if (marker) perStep.set(`${marker}/${toolSteps(r)}`, (perStep.get(`${marker}/${toolSteps(r)}`) ?? 0) + 1);
  }
  const reexecutedSteps = [...perStep.values()].reduce((a, n) => a + n - 1, 0);

  const inbound = (
    await db.execute<{ message_id: string; rows: number; chat: number }>(sql`
      SELECT message_id, count(*)::int AS rows, count(*) FILTER (WHERE status = 'chat')::int AS chat FROM inbound_messages WHERE message_id = ANY(${list(w.mails.map((m) => m.messageId))}) GROUP BY message_id`)
  ).rows;
  const lostInbound = w.mails.filter((m) => !inbound.some((r) => r.message_id === m.messageId && r.chat === 1)).length;
  const duplicateInbound = inbound.filter((r) => r.rows > 1).length;
  const repliesPer = w.mails.map((m) => world.sentMail.filter((s) => s.subject.includes(m.marker)).length);

  const completed = w.tasks.filter((t) => runs.some((r) => r.task_id === t.taskId && r.status === 'completed'));
  const hooks = world.webhooks.filter((h) => h.type === 'task.status_changed' && h.data.to === 'completed');
  const lostWebhooks = completed.filter((t) => !hooks.some((h) => h.data.taskId === t.taskId)).length;
  const duplicateWebhooks = hooks.length - new Set(hooks.map((h) => h.id)).size;

  const streamResults = w.streams.map((s) => streamCheck(s));
  // A stream the kill cut counts as a request in flight at the kill that failed.
  for (const s of w.streams) if (s.resumed) w.attempts.list.push({ kind: 'chat stream', start: s.openedAt, end: w.killAt, status: 0, error: 'cut by the kill' });

  const failures = w.attempts.list.filter(failed);
  // In flight at the kill: sent before the process had exited, and not answered when the kill came.
  const inFlight = failures.filter((a) => a.start <= w.exitedAt && a.end >= w.killAt);
  const unexpected = failures.filter((a) => !inFlight.includes(a));
  // A retry of a write that was in flight at the kill waits on its key (409 idempotency_key_in_use) until the key's lease lapses: expected, counted apart.
  const keysInFlight = new Set(inFlight.map((a) => a.key).filter(Boolean));
  const waitingOnKey = (a: (typeof w.attempts.list)[number]) => a.status === 409 && a.key !== undefined && keysInFlight.has(a.key) && (a.error ?? '').includes('idempotency_key_in_use');
  const clientErrors = w.attempts.list.filter((a) => a.status >= 400 && a.status < 500 && !waitingOnKey(a));
  return {
    lostRuns,
    lostInbound,
    failedRequests: failures.length,
    runs: { tasks: ids.length, completed: runs.filter((r) => r.status === 'completed').length, lostRuns, duplicateRuns, reexecutedSteps },
    inbound: { accepted: w.mails.length, processedOnce: inbound.filter((r) => r.rows === 1 && r.chat === 1).length, lostInbound, duplicateInbound, answered: repliesPer.filter((n) => n >= 1).length, duplicateReplies: repliesPer.reduce((a, n) => a + Math.max(0, n - 1), 0) },
    streams: {
      opened: w.streams.length,
      cutByKill: w.streams.filter((s) => s.resumed).length,
      resumedAtAnotherProcess: w.streams.filter((s) => s.resumed && s.resumedServer && s.resumedServer !== w.victimName).length,
      complete: streamResults.filter((r) => r.complete).length,
      problems: streamResults.flatMap((r) => r.problems),
    },
    webhooks: { expected: completed.length, delivered: completed.length - lostWebhooks, lostWebhooks, duplicateWebhooks },
    requests: {
      total: w.attempts.list.length,
      failed: failures.length,
      failedInFlightAtKill: inFlight.length,
      unexpectedFailures: unexpected.map((a) => ({ kind: a.kind, status: a.status, error: a.error, atMs: a.start - w.killAt })),
      clientErrors: clientErrors.map((a) => ({ kind: a.kind, status: a.status, error: a.error, atMs: a.start - w.killAt })),
      busy503: w.attempts.list.filter((a) => a.status === 503).length,
      retriesWaitingOnKilledWritesKeys: w.attempts.list.filter(waitingOnKey).length,
    },
  };
}

/** A stream's events, with the resumed part after the cut: contiguous ids, ending with the assistant's message. */
function streamCheck(s: Stream): { complete: boolean; problems: string[] } {
  const problems: string[] = [];
  const firstIds = s.first.events.filter((e) => e.id !== null).map((e) => e.id as number);
  let events: Sse[] = s.first.events;
  if (s.resumed) {
    const after = s.resumed.events;
    const expected = Math.max(0, ...firstIds) + 1;
    if (after[0]?.id !== expected) problems.push(`${s.chatId}: resumed at ${after[0]?.id}, expected ${expected}`);
    events = [...s.first.events, ...after];
  }
  const ids = events.filter((e) => e.id !== null).map((e) => e.id as number);
  if (!ids.every((id, i) => i === 0 || id === ids[i - 1]! + 1)) problems.push(`${s.chatId}: ids not contiguous: ${ids.join(',')}`);
  const last = events.at(-1);
  const complete = last?.event === 'message' && last.data?.message?.role === 'assistant';
  if (!complete) problems.push(`${s.chatId}: ended with ${last?.event ?? 'nothing'}`);
  return { complete, problems };
}
