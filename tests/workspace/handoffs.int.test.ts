import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handoffs, handoffSessionLinks } from '@/db/schema';
import { assertAgentHasControl } from '@/server/workspace/control';
import { registerHandoffBrowser, type HandoffBrowser } from '@/server/workspace/handoffs/browser-seam';
import { ActiveResponse, SessionResponse } from '@/server/workspace/handoffs/contracts';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';

/**
 * Handoffs through the API and the agent: request_handoff run by the real task-run function
 * (built-in executor, scripted model), every endpoint and refusal of spec document 2, control of
 * the browser and its generation, single-use session links, expiry by the durable sweep, and the
 * task waking with the outcome.
 */
const h = useRunHarness();
// The handoff rules without a browser: the assistant's URL stays `claimed` and nothing starts
// Chromium (tests/workspace/handoffs-live.int.test.ts covers the real browser and live view).
let saved: HandoffBrowser | null = null;
beforeAll(() => void (saved = registerHandoffBrowser(null)));
afterAll(() => void registerHandoffBrowser(saved));
type Person = Awaited<ReturnType<typeof h.person>>;

const LOGIN = { actionType: 'login', targetUrl: 'https://shop.example.org/sign-in', prompt: 'Please sign in to the shop' };

async function active(p: Person) {
  const res = await call(h.app(), '/workspace/handoff/active', { key: p.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return ActiveResponse.parse(res.body);
}

/** A task whose first run asks for a handoff: the task and the open handoff. */
async function askForHandoff(p: Person, input: Record<string, unknown> = LOGIN, title = 'Order the groceries') {
  h.state.llm.enqueue({ toolCalls: [{ name: 'request_handoff', arguments: input }] });
  const { taskId, runId } = await h.startTask(p, { title });
  expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
  const list = await active(p);
  const handoff = list.handoffs.find((x) => x.taskId === taskId);
  expect(handoff, JSON.stringify(list)).toBeTruthy();
  return { taskId, handoff: handoff!, runId };
}

const post = (p: Person, path: string, body: unknown = {}, headers?: Record<string, string>) =>
  call(h.app(), `/workspace/handoff${path}`, { key: p.key, body, headers });

async function session(p: Person, handoffId: string) {
  const res = await post(p, `/${handoffId}/session`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return SessionResponse.parse(res.body);
}

/** The task's next run, once the handoff closed: what the model received in it. */
async function nextRun(taskId: string, count: number) {
  const runs = await h.until(async () => {
    const rows = await h.runsOf(taskId);
    return rows.length === count && ['finished', 'failed'].includes(rows[count - 1].status) ? rows : null;
  }, 30_000);
  return runs[count - 1];
}
const lastRequestText = () => JSON.stringify(h.state.llm.requests.at(-1)?.messages ?? []);

describe('request_handoff and the waiting task', () => {
  it('opens a pending handoff, the task waits for the user with an alarm, and resumes with the outcome after Done', async () => {
    const a = await h.person(await newAccount(h.app()));
    const { taskId, handoff } = await askForHandoff(a);
    expect(handoff).toMatchObject({ actionType: 'login', prompt: LOGIN.prompt, status: 'pending', closeReason: null, taskId });
    expect(handoff).toMatchObject({ urlSource: 'claimed', targetUrl: LOGIN.targetUrl });
    expect(new Date(handoff.expiresAt).getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const waiting = await h.taskRow(taskId);
    expect(waiting).toMatchObject({ status: 'awaiting_user_input', alarmStatus: 'set' });
    expect(waiting.alarmWakeAt!.getTime()).toBeGreaterThan(new Date(handoff.expiresAt).getTime());

    const s = await session(a, handoff.id);
    expect(s.sessionUrl).toMatch(new RegExp(`/handoffs/${handoff.id}\\?token=[A-Za-z0-9_-]{40,}$`));
    expect(s.control).toMatchObject({ operator: 'user', handoffId: handoff.id });
    expect((await active(a)).handoffs.find((x) => x.id === handoff.id)?.status).toBe('active');

    h.state.llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Ordered' } }] });
    const done = await post(a, `/${handoff.id}/complete`, { generation: s.control.generation });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ ok: true, taskId });

    const run = await nextRun(taskId, 2);
    expect(run).toMatchObject({ trigger: 'wake', status: 'finished' });
    const seen = lastRequestText();
    expect(seen).toContain(handoff.id);
    expect(seen).toContain('\\"closeReason\\":\\"completed\\"');
    expect(await h.taskRow(taskId)).toMatchObject({ status: 'completed' });
    expect((await active(a)).handoffs.some((x) => x.id === handoff.id)).toBe(false);
    const [row] = await h.db().select().from(handoffs).where(eq(handoffs.id, handoff.id));
    expect(row).toMatchObject({ status: 'completed', closeReason: 'completed' });
    expect((await active(a)).control.operator).toBe('agent');
  });

  it('decline: the task resumes told so, and may not ask again for a while', async () => {
    const a = await h.person(await newAccount(h.app()));
    const { taskId, handoff } = await askForHandoff(a);
    h.state.llm.enqueue({ toolCalls: [{ name: 'request_handoff', arguments: LOGIN }] }, { text: 'I cannot continue without signing in.' });
    expect((await post(a, `/${handoff.id}/decline`)).body).toEqual({ ok: true, taskId });
    await nextRun(taskId, 2);
    const texts = h.state.llm.requests.slice(-2).map((r) => JSON.stringify(r.messages));
    expect(texts[0]).toContain('\\"closeReason\\":\\"declined\\"');
    // The second request_handoff of that run was refused, and the model was told why.
    expect(texts[1]).toContain('The user declined a handoff for this task within the last hour');
    expect((await active(a)).handoffs).toEqual([]);
  });

  it('defer: message required, deferMinutes at most 20160; the task resumes with the message and deferredUntil', async () => {
    const a = await h.person(await newAccount(h.app()));
    const { taskId, handoff } = await askForHandoff(a);
    const missing = await post(a, `/${handoff.id}/defer`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('message');
    const tooLong = await post(a, `/${handoff.id}/defer`, { message: 'later', deferMinutes: 20_161 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toContain('deferMinutes');

    h.state.llm.enqueue({ text: 'Noted, I will ask tomorrow.' });
    const before = Date.now();
    const deferred = await post(a, `/${handoff.id}/defer`, { message: 'After lunch please', deferMinutes: 120 });
    expect(deferred.status, JSON.stringify(deferred.body)).toBe(200);
    const until = new Date(deferred.body.deferredUntil).getTime();
    expect(until).toBeGreaterThanOrEqual(before + 120 * 60_000 - 1_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 120 * 60_000 + 1_000);
    await nextRun(taskId, 2);
    expect(lastRequestText()).toContain('After lunch please');
    expect(lastRequestText()).toContain('\\"closeReason\\":\\"deferred\\"');

    // Already closed: 400 for defer and decline.
    expect((await post(a, `/${handoff.id}/defer`, { message: 'again' })).status).toBe(400);
    expect((await post(a, `/${handoff.id}/decline`)).status).toBe(400);
    expect((await post(a, `/${handoff.id}/complete`)).status).toBe(400);
    expect((await post(a, `/${handoff.id}/session`)).status).toBe(400);
  });

  it('a task that closes closes its open handoff (task_closed) and gives the browser back', async () => {
    const acct = await newAccount(h.app());
    const a = await h.person(acct);
    const { taskId, handoff } = await askForHandoff(a);
    await session(a, handoff.id);
    await expect(assertAgentHasControl(h.db(), acct.accountId, a.id)).rejects.toMatchObject({ status: 409, code: 'user_has_control' });
    expect((await call(h.app(), `/tasks/${taskId}/mark-done`, { key: a.key, method: 'POST' })).status).toBe(200);
    const [row] = await h.db().select().from(handoffs).where(eq(handoffs.id, handoff.id));
    expect(row).toMatchObject({ status: 'closed', closeReason: 'task_closed' });
    expect((await active(a)).control).toMatchObject({ operator: 'agent', handoffId: null });
    await expect(assertAgentHasControl(h.db(), acct.accountId, a.id)).resolves.toBeUndefined();
  });

  it('a newer request of the same task supersedes the open one', async () => {
    const a = await h.person(await newAccount(h.app()));
    const { taskId, handoff } = await askForHandoff(a);
    h.state.llm.enqueue({ toolCalls: [{ name: 'request_handoff', arguments: { ...LOGIN, actionType: 'mfa', prompt: 'Enter the code' } }] });
    const again = await call(h.app(), `/tasks/${taskId}/process`, { key: a.key, body: { message: 'Try again' } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await h.ended(again.body.process.executionId);
    const list = await active(a);
    expect(list.handoffs).toHaveLength(1);
    expect(list.handoff).toMatchObject({ actionType: 'mfa', taskId });
    const [old] = await h.db().select().from(handoffs).where(eq(handoffs.id, handoff.id));
    expect(old).toMatchObject({ status: 'closed', closeReason: 'superseded' });
  });
});

describe('expiry', () => {
  it('the durable sweep expires a handoff at expiresAt and the task wakes told so; answers after that are refused', async () => {
    const a = await h.person(await newAccount(h.app()));
    const { taskId, handoff } = await askForHandoff(a);
    await session(a, handoff.id);
    await h.db().update(handoffs).set({ expiresAt: new Date(Date.now() - 1_000) }).where(eq(handoffs.id, handoff.id));
    h.state.llm.enqueue({ text: 'The sign-in window passed.' });
    const { inngest } = await import('@/inngest/client');
    const { events } = await import('@/inngest/events');
    await inngest.send(events.handoffsExpiryDue.create({}));
    const row = await h.until(async () => {
      const [r] = await h.db().select().from(handoffs).where(eq(handoffs.id, handoff.id));
      return r.status === 'expired' ? r : null;
    }, 30_000);
    expect(row.closeReason).toBe('expired');
    await nextRun(taskId, 2);
    expect(lastRequestText()).toContain('\\"closeReason\\":\\"expired\\"');
    expect((await active(a)).control.operator).toBe('agent');
    const complete = await post(a, `/${handoff.id}/complete`);
    expect(complete.body).toMatchObject({ status: 404, error_code: 'session_expired' });
    expect((await post(a, `/${handoff.id}/defer`, { message: 'x' })).status).toBe(400);
  });
});

describe('endpoints and refusals', () => {
  it('launch: a session of your own (taskId null), starting then ready, one at a time; failed when the browser cannot start', async () => {
    const a = await h.person(await newAccount(h.app()));
    let release = () => {};
    const started = new Promise<void>((r) => (release = r));
    const slow: HandoffBrowser = { start: () => started, openForTask: async () => null, livePage: async () => null };
    registerHandoffBrowser(slow);
    try {
      const first = await post(a, '/launch');
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body).toEqual({ ok: true, handoffId: expect.any(String), status: 'starting' });
      expect((await active(a)).handoff).toMatchObject({ id: first.body.handoffId, status: 'starting', taskId: null });
      const second = await post(a, '/launch');
      const [old] = await h.db().select().from(handoffs).where(eq(handoffs.id, first.body.handoffId));
      expect(old).toMatchObject({ status: 'closed', closeReason: 'superseded' });
      release();
      const ready = await h.until(async () => {
        const list = await active(a);
        return list.handoff?.status === 'ready' ? list : null;
      });
      expect(ready.handoffs.map((x) => x.id)).toEqual([second.body.handoffId]);
      const s = await session(a, second.body.handoffId);
      expect(s.control).toMatchObject({ operator: 'user', handoffId: second.body.handoffId });
      expect((await post(a, `/${second.body.handoffId}/complete`)).body).toEqual({ ok: true, taskId: null });
    } finally {
      registerHandoffBrowser(null);
    }
    // No browser at all: the start fails and the session is `failed`, no longer open.
    const third = await post(a, '/launch');
    const failed = await h.until(async () => {
      const [r] = await h.db().select().from(handoffs).where(eq(handoffs.id, third.body.handoffId));
      return r.status !== 'starting' ? r : null;
    });
    expect(failed).toMatchObject({ status: 'failed', taskId: null });
    expect((await post(a, `/${third.body.handoffId}/session`)).status).toBe(400);
  });

  it('403 without a user; another user’s handoff and an unknown id are 404; bad bodies are 400', async () => {
    const acct = await newAccount(h.app());
    const a = await h.person(acct);
    const b = await h.person(acct);
    const { handoff } = await askForHandoff(a);
    const asAccount = (path: string, body?: unknown) => call(h.app(), `/workspace/handoff${path}`, { key: acct.key, body });
    expect((await asAccount('/active')).status).toBe(403);
    expect((await asAccount('/launch', {})).status).toBe(403);
    for (const op of ['session', 'complete', 'decline']) expect((await asAccount(`/${handoff.id}/${op}`, {})).status).toBe(403);
    expect((await asAccount(`/${handoff.id}/defer`, { message: 'x' })).status).toBe(403);
    expect((await asAccount('/resolve', { items: [{ handoffId: handoff.id, outcome: 'completed' }] })).status).toBe(403);

    for (const op of ['session', 'complete', 'decline']) {
      expect((await post(b, `/${handoff.id}/${op}`)).status, op).toBe(404);
      expect((await post(a, `/nope/${op}`)).status, op).toBe(404);
    }
    expect((await post(b, `/${handoff.id}/defer`, { message: 'x' })).status).toBe(404);
    expect((await active(b)).handoffs).toEqual([]);
    // Another user's id in resolve is skipped: nothing closes.
    expect((await post(b, '/resolve', { items: [{ handoffId: handoff.id, outcome: 'declined' }] })).body).toEqual({ ok: true, resolved: [] });
    expect((await active(a)).handoffs.map((x) => x.id)).toEqual([handoff.id]);

    // complete before any session: 400 session_not_open.
    expect((await post(a, `/${handoff.id}/complete`)).body).toMatchObject({ status: 400, error_code: 'session_not_open' });
    const bad = await post(a, '/resolve', { items: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('items');
    const many = Array.from({ length: 51 }, () => ({ handoffId: handoff.id, outcome: 'pending' }));
    expect((await post(a, '/resolve', { items: many })).status).toBe(400);
    const longNote = await post(a, '/resolve', { items: [{ handoffId: handoff.id, outcome: 'completed', note: 'x'.repeat(2001) }] });
    expect(longNote.status).toBe(400);
    expect(longNote.body.error).toContain('note');
    expect((await post(a, '/resolve', { items: [{ handoffId: handoff.id, outcome: 'maybe' }] })).status).toBe(400);
    expect((await active(a)).handoffs).toHaveLength(1);
  });

  it('resolve closes completed and declined items with the note, leaves pending ones open', async () => {
    const a = await h.person(await newAccount(h.app()));
    const one = await askForHandoff(a, LOGIN, 'First');
    const two = await askForHandoff(a, LOGIN, 'Second');
    const three = await askForHandoff(a, LOGIN, 'Third');
    h.state.llm.setFallback({ text: 'Understood.' });
    const res = await post(a, '/resolve', {
      items: [
        { handoffId: one.handoff.id, outcome: 'completed', note: 'Signed in on my phone' },
        { handoffId: two.handoff.id, outcome: 'declined' },
        { handoffId: three.handoff.id, outcome: 'pending' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.resolved).toEqual([
      { handoffId: one.handoff.id, outcome: 'completed' },
      { handoffId: two.handoff.id, outcome: 'declined' },
    ]);
    expect((await active(a)).handoffs.map((x) => x.id)).toEqual([three.handoff.id]);
    await nextRun(one.taskId, 2);
    const told = h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes('Signed in on my phone'));
    expect(told.length).toBeGreaterThan(0);
    await nextRun(two.taskId, 2);
  });

  it('409 when control changed since the generation the caller read (body or If-Match); calls without one still work', async () => {
    const a = await h.person(await newAccount(h.app()));
    const one = await askForHandoff(a, LOGIN, 'One');
    const two = await askForHandoff(a, LOGIN, 'Two');
    const read = (await active(a)).control.generation;
    const s1 = await session(a, one.handoff.id);
    expect(s1.control.generation).toBeGreaterThan(read);
    // Control moved since `read`: a session for the other handoff with the old generation is refused.
    const stale = await post(a, `/${two.handoff.id}/session`, { generation: read });
    expect(stale.status).toBe(409);
    expect(stale.body.control).toMatchObject({ operator: 'user', handoffId: one.handoff.id });
    expect((await post(a, `/${one.handoff.id}/complete`, {}, { 'If-Match': `"${read}"` })).status).toBe(409);
    expect((await post(a, `/${two.handoff.id}/decline`, { generation: read })).status).toBe(409);
    expect((await post(a, `/${two.handoff.id}/defer`, { message: 'x', generation: read })).status).toBe(409);
    expect((await post(a, '/resolve', { items: [{ handoffId: two.handoff.id, outcome: 'declined' }], generation: read })).status).toBe(409);
    expect((await post(a, `/${one.handoff.id}/complete`, {}, { 'If-Match': 'soon' })).status).toBe(400);
    // Nothing changed by the refused calls.
    expect((await active(a)).handoffs).toHaveLength(2);
    h.state.llm.setFallback({ text: 'Thanks.' });
    expect((await post(a, `/${one.handoff.id}/complete`, {}, { 'If-Match': `"${s1.control.generation}"` })).status).toBe(200);
    expect((await post(a, `/${two.handoff.id}/decline`)).status).toBe(200);
    await nextRun(one.taskId, 2);
    await nextRun(two.taskId, 2);
  });

  it('each session call issues a new link; only a hash of the token is stored', async () => {
    const a = await h.person(await newAccount(h.app()));
    const { handoff } = await askForHandoff(a);
    const s1 = await session(a, handoff.id);
    const s2 = await session(a, handoff.id);
    expect(s1.sessionUrl).not.toBe(s2.sessionUrl);
    expect(s2.control.generation).toBe(s1.control.generation);
    const rows = await h.db().select().from(handoffSessionLinks).where(eq(handoffSessionLinks.handoffId, handoff.id));
    expect(rows).toHaveLength(2);
    const tokens = [s1, s2].map((s) => new URL(s.sessionUrl).searchParams.get('token')!);
    const dump = JSON.stringify(await h.db().execute('SELECT * FROM handoff_session_links'));
    for (const t of tokens) expect(dump).not.toContain(t);
  });
});

describe('policy', () => {
  it('workspaceHandoff off refuses launch and request_handoff; a blocklisted domain is refused', async () => {
    const acct = await newAccount(h.app());
    const a = await h.person(acct);
    const teamId = a.teamId;
    expect(teamId).toBeTruthy();
    const url = `/teams/${teamId}/settings/resource-permissions`;
    const blocked = await call(h.app(), url, { key: acct.key, method: 'PATCH', body: { capabilities: { workspaceHandoffDomains: { allowlist: [], blocklist: ['example.org'] } } } });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(200);
    h.state.llm.enqueue({ toolCalls: [{ name: 'request_handoff', arguments: LOGIN }] }, { text: 'Blocked.' });
    const { runId } = await h.startTask(a, { title: 'Blocked shop' });
    await h.ended(runId);
    expect(lastRequestText()).toContain('shop.example.org is on the handoff blocklist');
    expect((await active(a)).handoffs).toEqual([]);

    const off = await call(h.app(), url, { key: acct.key, method: 'PATCH', body: { capabilities: { workspaceHandoff: 'off' } } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect((await post(a, '/launch')).body).toMatchObject({ status: 403, error_code: 'handoff_not_allowed' });
  });
});
