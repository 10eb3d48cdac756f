import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { handoffs, users } from '@/db/schema';
import { sessionSetCookie } from '@/server/sign-in/session';
import { attachWorkspaceLive } from '@/server/workspace/live/attach';
import { peekWorkspace, stopAllWorkspaces } from '@/server/workspace/browser/manager';
import { assertAgentHasControl } from '@/server/workspace/control';
import { registerHandoffBrowser, workspaceBrowser } from '@/server/workspace/handoffs/browser-seam';
import { ActiveResponse, SessionResponse } from '@/server/workspace/handoffs/contracts';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';

/*
 * The live view: the session link's single-use token opening the WebSocket served beside the
 * API (server/workspace/live/attach.ts), frames of the user's real Chromium, the person's clicks and
 * keys reaching the page, and the handoff answered from the view. The task asks for the handoff
 * in a real run (scripted model), to a sign-in page on loopback.
 */

process.env.STEWARD_WORKSPACE_DIR = mkdtempSync(path.join(os.tmpdir(), 'steward-ws-handoff-'));
process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = '127.0.0.1/32';

const h = useRunHarness();
let live: http.Server;
let liveOrigin = '';
let site: http.Server;
let siteOrigin = '';

/** A sign-in form whose fields sit at known places of the 1280×800 tab. */
const FORM = `<!doctype html><html><head><title>Sign in</title><style>body{margin:0} input{position:absolute;left:100px;width:400px;height:40px;font-size:20px}</style></head>
<body><form method="post" action="/login"><input id="user" name="user" style="top:100px" autocomplete="off"><input id="pass" name="pass" type="password" style="top:200px"><button type="submit" style="position:absolute;top:300px;left:100px">Sign in</button></form></body></html>`;

beforeAll(async () => {
  registerHandoffBrowser(workspaceBrowser);
  site = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/login') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const user = new URLSearchParams(body).get('user') ?? '';
        res.writeHead(303, { location: '/account', 'set-cookie': `who=${encodeURIComponent(user)}; Path=/` });
        res.end();
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    if (req.url === '/account') res.end(`<p id="hi">Welcome, ${decodeURIComponent(/who=([^;]*)/.exec(req.headers.cookie ?? '')?.[1] ?? 'stranger')}</p>`);
    else res.end(FORM);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  live = http.createServer((_req, res) => res.writeHead(404).end());
  attachWorkspaceLive(live, h.db());
  await new Promise<void>((r) => live.listen(0, '127.0.0.1', r));
  liveOrigin = `ws://127.0.0.1:${(live.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await stopAllWorkspaces();
  live?.closeAllConnections();
  await new Promise<void>((r) => (live ? live.close(() => r()) : r()));
  site?.closeAllConnections();
  await new Promise<void>((r) => (site ? site.close(() => r()) : r()));
});

type Person = Awaited<ReturnType<typeof h.person>>;
type Msg = { type: string; [k: string]: any };

/** A WebSocket to the live view of a session URL, with every message it received. */
function connect(sessionUrl: string, headers: Record<string, string> = {}) {
  const u = new URL(sessionUrl);
  const handoffId = u.pathname.split('/').pop()!;
  const ws = new WebSocket(`${liveOrigin}/api/workspace/live/${handoffId}?token=${encodeURIComponent(u.searchParams.get('token')!)}`, { headers });
  const messages: Msg[] = [];
  ws.on('message', (raw) => messages.push(JSON.parse(String(raw))));
  const opened = new Promise<number>((resolve) => {
    ws.once('open', () => resolve(101));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', () => resolve(0));
  });
  const next = (pred: (m: Msg) => boolean, timeoutMs = 20_000) =>
    h.until(async () => messages.find(pred) ?? null, timeoutMs);
  const send = (m: unknown) => ws.send(JSON.stringify(m));
  return { ws, messages, opened, next, send };
}

async function askForHandoff(p: Person, targetUrl: string) {
  h.state.llm.enqueue({ toolCalls: [{ name: 'request_handoff', arguments: { actionType: 'login', targetUrl, prompt: 'Sign in, please' } }] });
  const { taskId, runId } = await h.startTask(p, { title: 'Check my account' });
  expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
  const list = ActiveResponse.parse((await call(h.app(), '/workspace/handoff/active', { key: p.key })).body);
  return { taskId, handoff: list.handoffs.find((x) => x.taskId === taskId)! };
}

async function sessionUrl(p: Person, handoffId: string) {
  const res = await call(h.app(), `/workspace/handoff/${handoffId}/session`, { key: p.key, body: {} });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return SessionResponse.parse(res.body).sessionUrl;
}

describe('the live view', () => {
  it('shows the task’s tab live, forwards clicks and keys, and Done from the view resumes the task', async () => {
    const acct = await newAccount(h.app());
    const a = await h.person(acct);
    const { taskId, handoff } = await askForHandoff(a, `${siteOrigin}/`);
    // The task's tab was opened at the target: the URL is the one read from the browser.
    expect(handoff).toMatchObject({ urlSource: 'live', targetUrl: `${siteOrigin}/` });

    const view = connect(await sessionUrl(a, handoff.id));
    expect(await view.opened).toBe(101);
    expect((await view.next((m) => m.type === 'hello')).handoff).toMatchObject({ id: handoff.id, prompt: 'Sign in, please', taskId });
    const frame = await view.next((m) => m.type === 'frame');
    expect(Buffer.from(frame.data, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(frame).toMatchObject({ width: 1280, height: 800 });
    expect((await view.next((m) => m.type === 'url')).url).toBe(`${siteOrigin}/`);
    // The assistant may not touch the browser while the person holds it.
    await expect(assertAgentHasControl(h.db(), acct.accountId, a.id)).rejects.toMatchObject({ status: 409, code: 'user_has_control' });

    const click = (x: number, y: number) => {
      view.send({ type: 'mouse', action: 'mousePressed', x, y, button: 'left', clickCount: 1 });
      view.send({ type: 'mouse', action: 'mouseReleased', x, y, button: 'left', clickCount: 1 });
    };
    const type = (text: string) => {
      for (const ch of text) {
        view.send({ type: 'key', action: 'keyDown', key: ch, code: '', keyCode: ch.toUpperCase().charCodeAt(0) });
        view.send({ type: 'key', action: 'keyUp', key: ch, code: '', keyCode: ch.toUpperCase().charCodeAt(0) });
      }
    };
    click(300, 120);
    type('ada');
    click(300, 220);
    type('s3cret');
    const tab = peekWorkspace(acct.accountId, a.id)!.existingPage(taskId)!;
    await h.until(async () => ((await tab.inputValue('#user')) === 'ada' && (await tab.inputValue('#pass')) === 's3cret') || null);
    view.send({ type: 'key', action: 'keyDown', key: 'Enter', code: 'Enter', keyCode: 13 });
    view.send({ type: 'key', action: 'keyUp', key: 'Enter', code: 'Enter', keyCode: 13 });
    expect((await view.next((m) => m.type === 'url' && m.url.endsWith('/account'))).url).toBe(`${siteOrigin}/account`);

    h.state.llm.enqueue({ toolCalls: [{ name: 'browser_read', arguments: {} }] }, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Signed in' } }] });
    view.send({ type: 'complete' });
    expect(await view.next((m) => m.type === 'closed')).toMatchObject({ status: 'completed', closeReason: 'completed' });
    const runs = await h.until(async () => {
      const rows = await h.runsOf(taskId);
      return rows.length === 2 && rows[1].status === 'finished' ? rows : null;
    }, 30_000);
    expect(runs[1].trigger).toBe('wake');
    const seen = JSON.stringify(h.state.llm.requests.at(-1)!.messages);
    // The model reads the signed-in page; what the person typed never reached it.
    expect(seen).toContain('Welcome, ada');
    expect(JSON.stringify(h.state.llm.requests.map((r) => r.messages))).not.toContain('s3cret');
    await expect(assertAgentHasControl(h.db(), acct.accountId, a.id)).resolves.toBeUndefined();
  });

  it('a session link opens the view once, for its own user: used, foreign, another user’s session or closed links are refused', async () => {
    const acct = await newAccount(h.app());
    const a = await h.person(acct);
    const b = await h.person(acct);
    const { handoff } = await askForHandoff(a, `${siteOrigin}/`);
    const url = await sessionUrl(a, handoff.id);

    // A token on another handoff's path opens nothing (and is not spent).
    const other = (await askForHandoff(b, `${siteOrigin}/`)).handoff;
    const wrongPath = url.replace(handoff.id, other.id);
    expect(await connect(wrongPath).opened).toBe(401);
    expect(await connect(url.replace(/token=[^&]+/, 'token=forged')).opened).toBe(401);

    // A browser signed in to the hosted app as someone else is refused, and the link is not spent.
    const [userB] = await h.db().select().from(users).where(eq(users.id, b.id));
    const cookieB = (await sessionSetCookie(h.db(), userB, 'email', false)).split(';')[0];
    expect(await connect(url, { cookie: cookieB }).opened).toBe(403);
    const [userA] = await h.db().select().from(users).where(eq(users.id, a.id));
    const cookieA = (await sessionSetCookie(h.db(), userA, 'email', false)).split(';')[0];
    const first = connect(url, { cookie: cookieA });
    expect(await first.opened).toBe(101);
    expect(await connect(url).opened).toBe(401);

    // Declined through the API: the open view is told and closed; a fresh link cannot open it.
    const fresh = await sessionUrl(a, handoff.id);
    h.state.llm.setFallback({ text: 'Understood.' });
    expect((await call(h.app(), `/workspace/handoff/${handoff.id}/decline`, { key: a.key, body: {} })).status).toBe(200);
    expect(await first.next((m) => m.type === 'closed')).toMatchObject({ closeReason: 'declined' });
    expect(await connect(fresh).opened).toBe(410);
    const [row] = await h.db().select().from(handoffs).where(eq(handoffs.id, handoff.id));
    expect(row.status).toBe('declined');
  });

  it('opens only from the handoff’s own origin: an upgrade from another Origin is refused with 403 before the link is spent', async () => {
    const acct = await newAccount(h.app());
    const a = await h.person(acct);
    const { handoff } = await askForHandoff(a, `${siteOrigin}/`);
    const url = await sessionUrl(a, handoff.id);
    // The live-view page is served on the account's hosted origin (here the public one), as the link says.
    const own = new URL(url).origin;
    for (const origin of ['https://evil.test', 'null', own.replace('http://', 'https://'), `${own}.evil.test`]) {
      expect(await connect(url, { origin }).opened, origin).toBe(403);
    }
    const view = connect(url, { origin: own });
    expect(await view.opened).toBe(101);
    expect(await view.next((m) => m.type === 'hello')).toMatchObject({ handoff: { id: handoff.id } });
    view.ws.close();
  });
});
