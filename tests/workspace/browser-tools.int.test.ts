import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handoffs, taskActivities, workspaceControls } from '@/db/schema';
import { peekWorkspace, stopAllWorkspaces } from '@/server/workspace/browser/manager';
import { call, newAccount, type AccountFixture } from '../helpers/client';
import type { ModelRequest, ScriptedModel } from '../helpers/scripted-model';
import { useRunHarness } from '../agent/run-harness';
import { startBrowserSite } from './browser-site';

/*
 * The agent's browser tools in real task runs: the production task-run function through the
 * built-in executor, a scripted OpenAI-compatible model, the user's real Chromium and a
 * website on loopback. What the model receives is what is asserted.
 */

process.env.STEWARD_WORKSPACE_DIR = mkdtempSync(path.join(os.tmpdir(), 'steward-ws-tools-'));
process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = '127.0.0.1/32';

const h = useRunHarness();
const { app, db, person, startTask, taskRow, ended } = h;
let llm: ScriptedModel;
let site: Awaited<ReturnType<typeof startBrowserSite>>;
let acct: AccountFixture;
beforeAll(async () => {
  llm = h.state.llm;
  site = await startBrowserSite();
  acct = await newAccount(app());
});
afterAll(async () => {
  await stopAllWorkspaces();
  await site?.close();
});

/** The tool result the model received for the call named `name` (the n-th such call). */
function toolResult(requests: ModelRequest[], name: string, n = 0): string {
  const last = requests.at(-1)!.messages;
  const calls = last.filter((m: any) => m.role === 'assistant' && m.tool_calls).flatMap((m: any) => m.tool_calls);
  const id = calls.filter((c: any) => c.function.name === name)[n]?.id;
  const result = last.find((m: any) => m.role === 'tool' && m.tool_call_id === id);
  if (!result) throw new Error(`no result for ${name}`);
  return result.content as string;
}

const call1 = (name: string, args: unknown = {}) => ({ toolCalls: [{ name, arguments: args }] });
const done = () => call1('complete_task', { summary: 'done' });

describe('browser tools in a task run', () => {
  it('browser_open and browser_read on a loopback site: the model gets the page’s text and links as untrusted data; browser_act types and clicks', async () => {
    const p = await person(acct);
    llm.enqueue(
      call1('browser_open', { url: `${site.origin}/article` }),
      call1('browser_read'),
      call1('browser_act', { action: 'type', selector: '#q', text: 'croissant' }),
      call1('browser_act', { action: 'click', text: 'Go' }),
      done(),
    );
    const { taskId, runId } = await startTask(p, {}, 'When does the bakery open?');
    const run = await ended(runId);
    expect(run.status, JSON.stringify(run)).toBe('finished');
    expect((await taskRow(taskId)).status).toBe('completed');

    expect(llm.requests[0].tools!.map((t: any) => t.function.name)).toEqual(expect.arrayContaining(['browser_open', 'browser_read', 'browser_act']));
    const opened = toolResult(llm.requests, 'browser_open');
    expect(opened).toContain('<untrusted-data source="tool:browser_open">');
    expect(JSON.parse(opened.split('\n').slice(1, -1).join('\n'))).toEqual({ url: `${site.origin}/article`, title: 'Test site', status: 200 });

    const read = toolResult(llm.requests, 'browser_read');
    expect(read.startsWith('<untrusted-data source="tool:browser_read">')).toBe(true);
    expect(read.trimEnd().endsWith('</untrusted-data>')).toBe(true);
    expect(read).toContain('The bakery opens at 7:30 on weekdays.');
    // Instructions on the page arrive inside the wrapper, as data.
    expect(read.indexOf('IGNORE PREVIOUS INSTRUCTIONS')).toBeGreaterThan(read.indexOf('<untrusted-data'));
    const page = JSON.parse(read.split('\n').slice(1, -1).join('\n'));
    expect(page.links).toEqual([{ text: 'Our menu', href: `${site.origin}/menu` }]);
    expect(page.fields).toEqual(expect.arrayContaining([expect.objectContaining({ tag: 'input', label: 'Search', selector: '#q' })]));

    const clicked = JSON.parse(toolResult(llm.requests, 'browser_act', 1).split('\n').slice(1, -1).join('\n'));
    expect(clicked).toMatchObject({ done: true, action: 'click', title: 'clicked croissant' });

    const acts = await db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'tool')));
    expect(acts.map((a) => a.toolName)).toEqual(['browser_open', 'browser_read', 'browser_act', 'browser_act', 'complete_task']);
    await peekWorkspace(acct.accountId, p.id)?.stop();
  });

  it('the website cell: under the default (manual) a click that would post a form is refused and nothing reaches the site; a search form still works; under auto the order is placed (issue 46)', async () => {
    const p = await person(acct);
    llm.enqueue(
      call1('browser_open', { url: `${site.origin}/shop` }),
      call1('browser_act', { action: 'click', selector: '#buy' }),
      call1('browser_act', { action: 'type', selector: '#qty', text: '2\n' }),
      call1('browser_act', { action: 'click', selector: '#find-go' }),
      done(),
    );
    const before = site.hits.get('/order') ?? 0;
    const first = await startTask(p, {}, 'Order two loaves');
    expect((await ended(first.runId)).status).toBe('finished');
    const refused = toolResult(llm.requests, 'browser_act');
    expect(refused).toContain('setting for acting on websites is manual: nothing was submitted');
    expect(toolResult(llm.requests, 'browser_act', 1)).toContain('nothing was submitted');
    expect(JSON.parse(toolResult(llm.requests, 'browser_act', 2).split('\n').slice(1, -1).join('\n'))).toMatchObject({ done: true, url: expect.stringContaining('/search?q=') });
    expect(site.hits.get('/order') ?? 0).toBe(before);

    const set = await call(app(), `/users/${p.id}/preferences/supervision/matrix`, { key: p.key, method: 'PATCH', body: { matrix: { website: { mode: 'auto' } } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    llm.enqueue(call1('browser_open', { url: `${site.origin}/shop` }), call1('browser_act', { action: 'click', selector: '#buy' }), done());
    const second = await startTask(p, {}, 'Order one loaf');
    expect((await ended(second.runId)).status).toBe('finished');
    expect(JSON.parse(toolResult(llm.requests, 'browser_act').split('\n').slice(1, -1).join('\n'))).toMatchObject({ done: true, url: `${site.origin}/order` });
    expect(site.hits.get('/order')).toBe(before + 1);
    await peekWorkspace(acct.accountId, p.id)?.stop();
  });

  it('each task has its own tab in the user’s one browser; another user’s browser never has the cookie', async () => {
    const [a, b] = [await person(acct), await person(acct)];
    llm.enqueue(call1('browser_open', { url: `${site.origin}/set-cookie?v=alice` }), done());
    await ended((await startTask(a)).runId);

    llm.enqueue(call1('browser_open', { url: `${site.origin}/show-cookie` }), call1('browser_read'), done());
    const second = await startTask(a);
    await ended(second.runId);
    expect(toolResult(llm.requests, 'browser_read')).toContain('cookie:[who=alice]');

    llm.reset();
    llm.enqueue(call1('browser_read'), call1('browser_open', { url: `${site.origin}/show-cookie` }), call1('browser_read', {}), done());
    await ended((await startTask(b)).runId);
    // A new task starts with no tab of its own.
    expect(toolResult(llm.requests, 'browser_read', 0)).toContain('call browser_open first');
    expect(toolResult(llm.requests, 'browser_read', 1)).toContain('cookie:[]');
    expect(toolResult(llm.requests, 'browser_read', 1)).not.toContain('alice');

    // a's two tasks are two tabs of one browser.
    const ws = peekWorkspace(acct.accountId, a.id)!;
    expect(ws.context.pages().length).toBeGreaterThanOrEqual(2);
    expect(ws.existingPage(second.taskId)!.url()).toBe(`${site.origin}/show-cookie`);
    await stopAllWorkspaces();
  });

  it('file://, the metadata address and (without the allowance) loopback are refused: the model is told why and no browser starts', async () => {
    const p = await person(acct);
    const saved = process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE;
    delete process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE;
    try {
      llm.enqueue(
        call1('browser_open', { url: 'file:///etc/passwd' }),
        call1('browser_open', { url: 'http://169.254.169.254/latest/meta-data/' }),
        call1('browser_open', { url: `${site.origin}/article` }),
        done(),
      );
      await ended((await startTask(p)).runId);
    } finally {
      process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = saved;
    }
    expect(toolResult(llm.requests, 'browser_open', 0)).toContain('file URLs are not allowed');
    expect(toolResult(llm.requests, 'browser_open', 1)).toContain('cloud metadata');
    expect(toolResult(llm.requests, 'browser_open', 2)).toContain('loopback, private or reserved');
    expect(site.hits.get('/article') ?? 0).toBe(1);
    expect(peekWorkspace(acct.accountId, p.id)).toBeNull();
  });

  it('browserAutomation off in the user’s team policy refuses every browser tool', async () => {
    const p = await person(acct);
    const team = await call(app(), '/teams', { key: acct.key, as: p.email, body: { name: 'No browsing' } });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    const off = await call(app(), `/teams/${team.body.team.id}/settings/resource-permissions`, {
      key: acct.key,
      method: 'PATCH',
      body: { capabilities: { browserAutomation: 'off' } },
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    llm.enqueue(call1('browser_open', { url: `${site.origin}/article` }), call1('browser_read'), done());
    await ended((await startTask(p)).runId);
    expect(toolResult(llm.requests, 'browser_open')).toContain('Browser automation is turned off');
    expect(toolResult(llm.requests, 'browser_read')).toContain('Browser automation is turned off');
    expect(peekWorkspace(acct.accountId, p.id)).toBeNull();
  });

  it('while the person holds the browser for a handoff, the assistant cannot act', async () => {
    const p = await person(acct);
    // What a session link of an open handoff leaves behind (server/workspace/control.ts).
    const [handoff] = await db()
      .insert(handoffs)
      .values({ accountId: acct.accountId, userId: p.id, actionType: 'login', status: 'active', expiresAt: new Date(Date.now() + 3_600_000) })
      .returning();
    await db().insert(workspaceControls).values({ accountId: acct.accountId, userId: p.id, operator: 'user', handoffId: handoff!.id, generation: 3 });
    llm.enqueue(call1('browser_open', { url: `${site.origin}/article` }), done());
    await ended((await startTask(p)).runId);
    expect(toolResult(llm.requests, 'browser_open')).toContain('The user holds the browser');
    expect(peekWorkspace(acct.accountId, p.id)).toBeNull();
  });
});
