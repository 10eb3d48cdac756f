import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { stewardNodes, tasks, workspaceHolders } from '@/db/schema';
import { NODE_SIGNATURE, signNodeCall } from '@/server/http/node-link';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { createTestDatabase } from '../helpers/database';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { startBrowserSite } from '../workspace/browser-site';
import { metric, startNodes, type Node, type NodeSet } from './nodes';

/**
 * The workspace follows its user (spec document 6, Many machines): three production processes on
 * one database and one workspace folder, each with STEWARD_NODE_URL and the shared
 * STEWARD_NODE_SECRET, and no affinity: every request goes to whichever process the test picks.
 * A user's browser runs in one of them; the others forward its work there (API, watch, the
 * live-view WebSocket, the browser tools of runs they drive); calls between processes need the
 * secret; when the holder dies, the next request starts the browser elsewhere, on the same profile.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let llm: ScriptedModel;
let site: Awaited<ReturnType<typeof startBrowserSite>>;
let set: NodeSet;
let nodes: Node[];
const MODEL = 'scripted-workspace-follows';

beforeAll(async () => {
  database = await createTestDatabase();
  llm = await startScriptedModel();
  site = await startBrowserSite();
  set = await startNodes(database, 3, { STEWARD_EXECUTOR_LEASE_MS: '3000', STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: MODEL });
  nodes = set.nodes;
}, 240_000);
afterAll(async () => {
  await set?.stop();
  await site?.close();
  await llm?.close();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function person(at: Node) {
  const acct = await newAccount(at);
  const u = await newUser(at, acct);
  const key = await userKey(at, acct, u.id);
  const hired = await call(at, `/users/${u.id}/assistants`, { key, body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBe(201);
  return { accountId: acct.accountId, id: u.id, key, assistantId: hired.body.assistant.id as string };
}
type Person = Awaited<ReturnType<typeof person>>;

async function runTask(at: Node, p: Person, message: string) {
  const created = await call(at, '/tasks', { key: p.key, body: { title: message.slice(0, 60), assistant: p.assistantId } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const taskId = created.body.task.id as string;
  const processed = await call(at, `/tasks/${taskId}/process`, { key: p.key, body: { message } });
  expect(processed.status, JSON.stringify(processed.body)).toBe(200);
  return taskId;
}

const taskStatus = async (taskId: string) => (await database.database.db.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, taskId)))[0]?.status;

/** The process that holds the user's browser, by the table (undefined: nobody). */
async function holderOf(userId: string): Promise<Node | undefined> {
  const [row] = await database.database.db.select({ url: stewardNodes.url }).from(workspaceHolders).innerJoin(stewardNodes, eq(stewardNodes.id, workspaceHolders.nodeId)).where(eq(workspaceHolders.userId, userId));
  return nodes.find((n) => n.url === row?.url);
}

/**
 * Browsers running in the whole deployment, and the holder rows naming a live process: equal when
 * no process runs a browser the table does not give it (never two for one user).
 */
async function browsersAndHolders() {
  const rows = await database.database.db.select({ url: stewardNodes.url }).from(workspaceHolders).innerJoin(stewardNodes, eq(stewardNodes.id, workspaceHolders.nodeId));
  const live = rows.filter((r) => nodes.some((n) => n.url === r.url && n.child.exitCode === null && n.child.signalCode === null));
  return { browsers: await browsersRunning(), holders: live.length };
}
const browsersRunning = async () => (await Promise.all(nodes.map((n) => metric(n, set.metricsToken, 'steward_workspace_browsers')))).reduce((a, b) => a + b, 0);

/** What the model was told as the result of the last call of `tool`. */
function toolResult(tool: string): string {
  for (const r of [...llm.requests].reverse()) {
    const calls = r.messages.filter((m: any) => m.role === 'assistant' && m.tool_calls).flatMap((m: any) => m.tool_calls);
    const id = calls.filter((c: any) => c.function.name === tool).at(-1)?.id;
    const result = id && r.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id);
    if (result) return String(result.content);
  }
  return '';
}

function liveView(at: Node, sessionUrl: string, headers: Record<string, string> = {}) {
  // The session link names the live-view page; the page opens the socket at /api/workspace/live/{handoffId}.
  const u = new URL(sessionUrl);
  const handoffId = u.pathname.split('/').pop()!;
  const ws = new WebSocket(`ws://127.0.0.1:${at.port}/api/workspace/live/${handoffId}?token=${encodeURIComponent(u.searchParams.get('token')!)}`, { headers });
  const messages: { type: string; [k: string]: any }[] = [];
  ws.on('message', (raw) => messages.push(JSON.parse(String(raw))));
  const opened = new Promise<number>((resolve) => {
    ws.once('open', () => resolve(101));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', () => resolve(0));
  });
  const next = (pred: (m: { type: string; [k: string]: any }) => boolean) => until('a live-view message', async () => messages.find(pred), 30_000);
  return { ws, opened, next, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

describe('the workspace follows its user across processes', () => {
  it('one process runs the browser; the others forward watch, profile, cleanup and the browser tools to it', { timeout: 180_000 }, async () => {
    const p = await person(nodes[0]!);
    const held = llm.hold();
    llm.enqueue({ toolCalls: [{ name: 'browser_open', arguments: { url: `${site.origin}/article` } }] }, held.script);
    const taskId = await runTask(nodes[1]!, p, 'Read the bakery page');
    await held.arrived;
    const holder = await holderOf(p.id);
    expect(holder, 'a process holds the browser').toBeDefined();

    // Watch through every process: the frame of the task's tab, numbered in one sequence.
    let last = 0;
    for (const n of [...nodes, ...nodes]) {
      const w = await call(n, `/workspace/watch?taskId=${taskId}`, { key: p.key });
      expect(w.status, JSON.stringify(w.body).slice(0, 300)).toBe(200);
      expect(w.body).toMatchObject({ available: true, taskId, width: 1280, height: 800 });
      expect(w.body.sequence).toBeGreaterThan(last);
      last = w.body.sequence;
    }
    for (const n of nodes) expect((await call(n, '/workspace/profile', { key: p.key })).body.profile).toMatchObject({ running: true });
    const elsewhere = nodes.filter((n) => n !== holder);
    expect((await call(elsewhere[0]!, '/workspace/cleanup', { key: p.key, body: { scope: 'cache' } })).status).toBe(200);
    // Still one browser in the whole deployment, in the same process.
    expect(await browsersRunning()).toBe(1);
    expect(await metric(holder!, set.metricsToken, 'steward_workspace_browsers')).toBe(1);
    expect(await holderOf(p.id)).toBe(holder);
    for (const n of elsewhere) expect(await metric(n, set.metricsToken, 'steward_workspace_forwards_total')).toBeGreaterThan(0);

    // The run goes on in whichever process claims it: the tab it reads is the one the browser shows.
    llm.enqueue({ toolCalls: [{ name: 'browser_act', arguments: { action: 'type', selector: '#q', text: 'rye' } }] });
    llm.enqueue({ toolCalls: [{ name: 'browser_act', arguments: { action: 'click', selector: '#go' } }] });
    llm.enqueue({ toolCalls: [{ name: 'browser_read', arguments: {} }] });
    llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Read it' } }] });
    held.release({ toolCalls: [{ name: 'browser_read', arguments: {} }] });
    await until('the task to complete', async () => (await taskStatus(taskId)) === 'completed', 90_000);
    expect(toolResult('browser_read')).toContain('clicked rye');
    expect(await browsersRunning()).toBe(1);
  });

  it('calls between processes need the secret: unsigned, wrongly signed and stale calls are refused, and a forged live-view upgrade spends nothing', { timeout: 180_000 }, async () => {
    const p = await person(nodes[0]!);
    const target = '/_steward/node/workspace';
    const body = JSON.stringify({ op: 'measure', accountId: p.accountId, userId: p.id, args: {} });
    const post = (n: Node, headers: Record<string, string>) => fetch(`${n.url}${target}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    for (const n of nodes) {
      expect((await post(n, {})).status).toBe(401);
      expect((await post(n, { [NODE_SIGNATURE]: signNodeCall('not-the-secret-but-long-enough-0123456789', 'POST', target, body) })).status).toBe(401);
      expect((await post(n, { [NODE_SIGNATURE]: signNodeCall(set.secret, 'POST', target, body, Date.now() - 5 * 60_000) })).status).toBe(401);
      // A signature over another body does not carry over.
      expect((await post(n, { [NODE_SIGNATURE]: signNodeCall(set.secret, 'POST', target, '{}') })).status).toBe(401);
      expect((await fetch(`${n.url}${target}`)).status).toBe(401);
      const signed = await post(n, { [NODE_SIGNATURE]: signNodeCall(set.secret, 'POST', target, body) });
      expect(signed.status).toBe(200);
      expect(await signed.json()).toEqual({ ok: true, value: null });
    }

    // A handoff: the task's tab opened at the target in whichever process holds the browser.
    llm.enqueue({ toolCalls: [{ name: 'request_handoff', arguments: { actionType: 'login', targetUrl: `${site.origin}/article`, prompt: 'Sign in, please' } }] });
    const taskId = await runTask(nodes[2]!, p, 'Check my account');
    const handoff = await until('the handoff', async () => {
      const list = await call(nodes[0]!, '/workspace/handoff/active', { key: p.key });
      return list.body.handoffs?.find((h: any) => h.taskId === taskId);
    });
    expect(handoff).toMatchObject({ urlSource: 'live', targetUrl: `${site.origin}/article` });
    const holder = (await holderOf(p.id))!;
    const [first, second] = nodes.filter((n) => n !== holder);
    const session = await call(first!, `/workspace/handoff/${handoff.id}/session`, { key: p.key, body: {} });
    expect(session.status, JSON.stringify(session.body)).toBe(200);
    const sessionUrl = session.body.sessionUrl as string;

    // A client that claims to be a process is refused, by any process, and the link stays unused.
    const forged = { [NODE_SIGNATURE]: `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` };
    for (const n of nodes) expect(await liveView(n, sessionUrl, forged).opened).toBe(401);
    expect(await liveView(second!, sessionUrl, { 'X-Steward-Node-Hop': '1' }).opened).toBe(401);

    // Opened at a process that does not hold the browser: the holder serves the view of the task's tab.
    const view = liveView(second!, sessionUrl);
    expect(await view.opened).toBe(101);
    expect((await view.next((m) => m.type === 'hello')).handoff).toMatchObject({ id: handoff.id, taskId });
    expect(await view.next((m) => m.type === 'frame')).toMatchObject({ width: 1280, height: 800 });
    expect((await view.next((m) => m.type === 'url')).url).toBe(`${site.origin}/article`);
    const counts = await browsersAndHolders();
    expect(counts.browsers).toBe(counts.holders);
    llm.setFallback({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Signed in' } }] });
    view.send({ type: 'complete' });
    expect(await view.next((m) => m.type === 'closed')).toMatchObject({ status: 'completed' });
    view.ws.close();
    await until('the task to complete', async () => (await taskStatus(taskId)) === 'completed', 90_000);
    llm.setFallback(null);
  });

  it('the profile stays on shared storage: a sign-in made in one process’s browser is there when another starts it', { timeout: 180_000 }, async () => {
    const p = await person(nodes[0]!);
    llm.enqueue({ toolCalls: [{ name: 'browser_open', arguments: { url: `${site.origin}/set-cookie?v=ada` } }] }, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Signed in' } }] });
    const first = await runTask(nodes[0]!, p, 'Sign in to the site');
    await until('the task to complete', async () => (await taskStatus(first)) === 'completed', 90_000);
    const holder = (await holderOf(p.id))!;
    // The holder stops (SIGTERM to Steward alone: its browsers close and write their profiles).
    const exited = new Promise((r) => holder.child.once('exit', r));
    process.kill(holder.child.pid!, 'SIGTERM');
    await exited;
    await holder.restart();
    expect(await holderOf(p.id)).toBeUndefined();

    llm.enqueue({ toolCalls: [{ name: 'browser_open', arguments: { url: `${site.origin}/show-cookie` } }] }, { toolCalls: [{ name: 'browser_read', arguments: {} }] }, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Checked' } }] });
    const second = await runTask(nodes[1]!, p, 'Am I signed in?');
    await until('the task to complete', async () => (await taskStatus(second)) === 'completed', 90_000);
    expect(toolResult('browser_read')).toContain('cookie:[who=ada]');
  });

  it('when the holder is killed, the next request starts a fresh browser in another process, never answering 503', { timeout: 180_000 }, async () => {
    const p = await person(nodes[0]!);
    const held = llm.hold();
    llm.enqueue({ toolCalls: [{ name: 'browser_open', arguments: { url: `${site.origin}/article` } }] }, held.script);
    const taskId = await runTask(nodes[0]!, p, 'Read the bakery page');
    await held.arrived;
    const holder = (await holderOf(p.id))!;
    const survivors = nodes.filter((n) => n !== holder);
    await holder.kill('SIGKILL');
    // The run's model call either answers now, or (its process was the one killed) is made again by another.
    llm.setFallback({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'done' } }] });
    held.release({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'done' } }] });

    // Watch never starts a browser: the tab went with the process.
    const watched = await call(survivors[0]!, `/workspace/watch?taskId=${taskId}`, { key: p.key });
    expect(watched.status).toBe(200);
    expect(watched.body).toMatchObject({ available: false, reason: 'watch_unavailable' });
    // Cleanup starts the browser: in the process asked, since the holder is gone.
    const cleaned = await call(survivors[1]!, '/workspace/cleanup', { key: p.key, body: { scope: 'cache' } });
    expect(cleaned.status, JSON.stringify(cleaned.body)).toBe(200);
    expect(await holderOf(p.id)).toBe(survivors[1]);
    expect(await metric(survivors[1]!, set.metricsToken, 'steward_workspace_takeovers_total')).toBeGreaterThan(0);
    // Every process forwards to the new holder again; the old one comes back as a new node.
    await holder.restart();
    for (const n of nodes) expect((await call(n, '/workspace/profile', { key: p.key })).body.profile).toMatchObject({ running: true });
    const counts = await browsersAndHolders();
    expect(counts.browsers).toBe(counts.holders);
    await until('the task to complete', async () => (await taskStatus(taskId)) === 'completed', 90_000);
    llm.setFallback(null);
  });
});
