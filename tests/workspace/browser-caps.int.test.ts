import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setAccountLimits } from '@/server/accounts/limits';
import { peekWorkspace, stopAllWorkspaces, workspaceFor, type UserWorkspace } from '@/server/workspace/browser/manager';
import { call, newAccount, type AccountFixture } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';
import { useRunHarness } from '../agent/run-harness';
import { startBrowserSite } from './browser-site';

/*
 * The browser caps (spec 5, Limits: STEWARD_BROWSERS_PER_ACCOUNT, STEWARD_BROWSERS_MAX, the
 * account's own override), with real Chromium and caps of 1 to 3: a start past a cap closes the
 * least recently used idle browser (of the account, or of anyone for the process-wide cap), never
 * a busy one (a task's run working in its tab, a page action or live view in progress), and is
 * refused with 503 browser_capacity when every candidate is busy: as the endpoint's answer, and as
 * a refusal the model reads in a real run.
 */

process.env.STEWARD_WORKSPACE_DIR = mkdtempSync(path.join(os.tmpdir(), 'steward-ws-caps-'));
process.env.STEWARD_WORKSPACE_ALLOW_PRIVATE = '127.0.0.1/32';

const h = useRunHarness();
const { app, db, person, startTask, ended } = h;
let site: Awaited<ReturnType<typeof startBrowserSite>>;
beforeAll(async () => {
  site = await startBrowserSite();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await stopAllWorkspaces();
});
afterAll(async () => {
  await site?.close();
});

type Person = Awaited<ReturnType<typeof person>>;
const caps = (perAccount: number, max: number) => {
  vi.stubEnv('STEWARD_BROWSERS_PER_ACCOUNT', String(perAccount));
  vi.stubEnv('STEWARD_BROWSERS_MAX', String(max));
};
const running = (acct: AccountFixture, p: Person) => peekWorkspace(acct.accountId, p.id) !== null;
const start = async (acct: AccountFixture, p: Person) => (await workspaceFor(acct.accountId, p.id, { start: true, db: db() }))!;
/** Last used `minutesAgo` minutes ago: the order in which idle browsers are closed. */
const usedAgo = (ws: UserWorkspace, minutesAgo: number) => {
  ws.lastActiveAt = new Date(Date.now() - minutesAgo * 60_000);
};
/** POST /workspace/cleanup starts the user's browser when it is not running. */
const cleanup = (p: Person) => call(app(), '/workspace/cleanup', { key: p.key, body: { scope: 'cache' } });

function toolResult(requests: ModelRequest[], name: string): string {
  const last = requests.at(-1)!.messages;
  const calls = last.filter((m: any) => m.role === 'assistant' && m.tool_calls).flatMap((m: any) => m.tool_calls);
  const id = calls.find((c: any) => c.function.name === name)?.id;
  return last.find((m: any) => m.role === 'tool' && m.tool_call_id === id)?.content as string;
}

describe('the per-account cap', () => {
  it('closes the account’s least recently used idle browser, never a busy one, and refuses when all are busy', async () => {
    caps(2, 10);
    const acct = await newAccount(app());
    const [p1, p2, p3, p4, p5] = [await person(acct), await person(acct), await person(acct), await person(acct), await person(acct)];

    // p1's task opens a page in its tab, then its run waits on the model: the tab is working.
    const held = h.state.llm.hold();
    h.state.llm.enqueue({ toolCalls: [{ name: 'browser_open', arguments: { url: `${site.origin}/article` } }] }, held.script);
    const working = await startTask(p1, {}, 'Read the article');
    await held.arrived;
    usedAgo(peekWorkspace(acct.accountId, p1.id)!, 30);
    usedAgo(await start(acct, p2), 10);

    // The account is full: p1 is the least recently used but busy, so p2 (idle) makes room.
    expect((await cleanup(p3)).status).toBe(200);
    expect(running(acct, p1)).toBe(true);
    expect(running(acct, p2)).toBe(false);
    expect(running(acct, p3)).toBe(true);

    // p3's browser is in use too (a page action in progress): nothing can be closed.
    const release = peekWorkspace(acct.accountId, p3.id)!.hold();
    const refused = await cleanup(p4);
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body).toMatchObject({ ok: false, error_code: 'browser_capacity' });
    expect(refused.body.error).toContain('STEWARD_BROWSERS_PER_ACCOUNT');
    expect(running(acct, p4)).toBe(false);

    // The model gets the same refusal as a tool result it can read; the run goes on.
    h.state.llm.enqueue({ toolCalls: [{ name: 'browser_open', arguments: { url: `${site.origin}/article` } }] }, { toolCalls: [{ name: 'complete_task', arguments: { summary: 'no browser' } }] });
    const blocked = await startTask(p5, {}, 'Read the article');
    expect((await ended(blocked.runId)).status).toBe('finished');
    const told = toolResult(h.state.llm.requests, 'browser_open');
    expect(told).toContain('browser cannot start now');
    expect(told).toContain('STEWARD_BROWSERS_PER_ACCOUNT');
    expect(running(acct, p5)).toBe(false);
    expect(running(acct, p1) && running(acct, p3)).toBe(true);

    // Once p1's run ends and p3's action is done, both are idle: the least recently used goes first.
    held.release({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'read' } }] });
    expect((await ended(working.runId)).status).toBe('finished');
    release();
    usedAgo(peekWorkspace(acct.accountId, p1.id)!, 30);
    usedAgo(peekWorkspace(acct.accountId, p3.id)!, 5);
    expect((await cleanup(p4)).status).toBe(200);
    expect(running(acct, p1)).toBe(false);
    expect(running(acct, p3)).toBe(true);
    expect(running(acct, p4)).toBe(true);
  });

  it('follows the account’s own override of STEWARD_BROWSERS_PER_ACCOUNT, and leaves other accounts alone', async () => {
    caps(5, 10);
    const [acct, other] = [await newAccount(app()), await newAccount(app())];
    const [p1, p2] = [await person(acct), await person(acct)];
    const q1 = await person(other);
    usedAgo(await start(other, q1), 60);
    await setAccountLimits(db(), acct.accountId, { browsersPerAccount: 1 });
    await start(acct, p1);
    await start(acct, p2);
    expect(running(acct, p1)).toBe(false);
    expect(running(acct, p2)).toBe(true);
    expect(running(other, q1)).toBe(true);
  });
});

describe('the process-wide cap', () => {
  it('closes the least recently used idle browser of any account, and refuses when every browser is busy', async () => {
    caps(10, 2);
    const [a, b] = [await newAccount(app()), await newAccount(app())];
    const [p1, p2] = [await person(a), await person(a)];
    const q1 = await person(b);
    usedAgo(await start(a, p1), 20);
    usedAgo(await start(b, q1), 40);
    // Full: q1, of the other account, is the least recently used idle one.
    await start(a, p2);
    expect(running(b, q1)).toBe(false);
    expect(running(a, p1) && running(a, p2)).toBe(true);

    const releases = [peekWorkspace(a.accountId, p1.id)!.hold(), peekWorkspace(a.accountId, p2.id)!.hold()];
    const refused = await cleanup(q1);
    expect(refused.status, JSON.stringify(refused.body)).toBe(503);
    expect(refused.body).toMatchObject({ error_code: 'browser_capacity' });
    expect(refused.body.error).toContain('STEWARD_BROWSERS_MAX');
    expect(running(b, q1)).toBe(false);
    releases.forEach((r) => r());
  });

  it('two starts at once never both take the last place', async () => {
    caps(10, 1);
    const acct = await newAccount(app());
    const [p1, p2, p3] = [await person(acct), await person(acct), await person(acct)];
    const release = (await start(acct, p1)).hold();
    const both = await Promise.allSettled([start(acct, p2), start(acct, p3)]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    release();
    // With p1 idle again, the first admitted start closes it; the other finds that one still launching (busy): refused.
    const settled = await Promise.allSettled([start(acct, p2), start(acct, p3)]);
    expect(settled.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect([running(acct, p1), running(acct, p2), running(acct, p3)].filter(Boolean)).toHaveLength(1);
  });
});
