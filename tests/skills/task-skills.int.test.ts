import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '@/db/schema';
import { useRunHarness } from '../agent/run-harness';
import { call, newAccount } from '../helpers/client';
import { startTestMcpServer, type TestMcpServer } from '../helpers/mcp-server';
import type { ModelRequest } from '../helpers/scripted-model';

/*
 * A task's skills[] limits what its runs may use (spec 2, POST /tasks `skills`; spec 4, Tools and
 * Skills): empty, every skill of the owner; naming skills (by name or id), only those skills' MCP
 * tools, only those `when_named` skills, and the browser tools only if it names the browser
 * skill. What the scripted model received is asserted.
 */

const h = useRunHarness();
const { app, db, person, createTask, ended } = h;
type Person = Awaited<ReturnType<typeof person>>;

let mcp: TestMcpServer;
const saved = process.env.STEWARD_MCP_ALLOWED_RANGES;
beforeAll(async () => {
  process.env.STEWARD_MCP_ALLOWED_RANGES = '127.0.0.0/8';
  mcp = await startTestMcpServer();
});
afterAll(async () => {
  if (saved === undefined) delete process.env.STEWARD_MCP_ALLOWED_RANGES;
  else process.env.STEWARD_MCP_ALLOWED_RANGES = saved;
  await mcp?.close();
});

const BROWSER = ['browser_open', 'browser_read', 'browser_act'];
const toolsOf = (r: ModelRequest) => (r.tools ?? []).map((t: any) => t.function.name as string);
const systemOf = (r: ModelRequest) => String(r.messages.find((m) => m.role === 'system')?.content ?? '');
const requestsOf = (title: string) => h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes(`Task: ${title}`));

async function install(p: Person, body: Record<string, unknown>) {
  const res = await call(app(), '/skills', { key: p.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.skill as { id: string; name: string };
}

/** One run of a new task with these skills[]: the model's first request (tools, system message) and the task's id. */
async function runWith(p: Person, title: string, skills: string[] | undefined, replies: Parameters<typeof h.state.llm.enqueue> = [{ text: 'Done.' }]) {
  const taskId = await createTask(p, { title, ...(skills ? { skills } : {}) });
  h.state.llm.enqueue(...replies);
  const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Go' } });
  expect(processed.status, JSON.stringify(processed.body)).toBe(200);
  expect((await ended(processed.body.process.executionId)).status).toBe('finished');
  const requests = requestsOf(title);
  expect(requests.length).toBeGreaterThan(0);
  return { taskId, first: requests[0], requests };
}

describe("a task's skills[]", () => {
  it('limits the MCP tools and the browser tools its runs are offered; empty offers every skill', async () => {
    const a = await person(await newAccount(app()));
    const deskA = await install(a, { kind: 'mcp', mcpServerUrl: mcp.url, name: 'desk-a' });
    const deskB = await install(a, { kind: 'mcp', mcpServerUrl: mcp.url, name: 'desk-b' });
    expect([deskA.name, deskB.name]).toEqual(['desk-a', 'desk-b']);

    // No skills[]: both skills' tools, and the browser.
    const all = toolsOf((await runWith(a, 'Every skill', undefined)).first);
    expect(all).toEqual(expect.arrayContaining(['mcp__desk-a__lookup_weather', 'mcp__desk-a__create_ticket', 'mcp__desk-b__lookup_weather', 'mcp__desk-b__create_ticket', ...BROWSER]));

    // One skill named: only its tools; the browser is not named, so no browser tools; the core tools stay.
    const onlyA = toolsOf((await runWith(a, 'Only desk A', ['desk-a'])).first);
    expect(onlyA).toEqual(expect.arrayContaining(['mcp__desk-a__lookup_weather', 'mcp__desk-a__create_ticket', 'send_email', 'complete_task']));
    expect(onlyA.filter((n) => n.startsWith('mcp__desk-b__'))).toEqual([]);
    expect(onlyA.filter((n) => n.startsWith('browser_'))).toEqual([]);

    // Named by id (any case) and the browser by its name: desk B and the browser, not desk A.
    const bAndBrowser = toolsOf((await runWith(a, 'Desk B and the web', [deskB.id.toUpperCase(), 'Browser'])).first);
    expect(bAndBrowser).toEqual(expect.arrayContaining(['mcp__desk-b__lookup_weather', ...BROWSER]));
    expect(bAndBrowser.filter((n) => n.startsWith('mcp__desk-a__'))).toEqual([]);
  });

  it('a skill left out cannot be called: the model is told there is no such tool and the server is not called', async () => {
    const a = await person(await newAccount(app()));
    await install(a, { kind: 'mcp', mcpServerUrl: mcp.url, name: 'desk-a' });
    await install(a, { kind: 'mcp', mcpServerUrl: mcp.url, name: 'desk-b' });
    const before = mcp.calls.length;
    const { requests } = await runWith(
      a,
      'Sneak into desk B',
      ['desk-a'],
      [{ toolCalls: [{ name: 'mcp__desk-b__lookup_weather', arguments: { city: 'Oslo' } }, { name: 'browser_open', arguments: { url: 'https://example.org/' } }] }, { text: 'Done.' }],
    );
    const results = requests.at(-1)!.messages.filter((m: any) => m.role === 'tool').map((m: any) => String(m.content));
    expect(results).toHaveLength(2);
    expect(results[0]).toContain('There is no tool mcp__desk-b__lookup_weather');
    expect(results[1]).toContain('There is no tool browser_open');
    expect(mcp.calls.length).toBe(before);
  });

  it('naming only instructions skills: those apply, and no MCP or browser tool is offered; an unknown name is accepted and matches nothing', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    await install(a, { kind: 'mcp', mcpServerUrl: mcp.url, name: 'desk-a' });
    await install(a, { kind: 'instructions', name: 'house-style', instructions: 'Sign as Ada.' });
    await install(a, { kind: 'instructions', name: 'travel-policy', instructions: 'Book economy class only.', applies: 'when_named' });

    const { first } = await runWith(a, 'Plan a trip', ['travel-policy']);
    expect(systemOf(first)).toContain('Book economy class only.');
    // A skill that applies always still applies: it is configuration, not a tool.
    expect(systemOf(first)).toContain('Sign as Ada.');
    expect(toolsOf(first).filter((n) => n.startsWith('mcp__') || n.startsWith('browser_'))).toEqual([]);

    // A name no skill has: POST /tasks keeps it (201), and it widens nothing.
    const unknown = await runWith(a, 'Unknown skill', ['no-such-skill']);
    expect(toolsOf(unknown.first).filter((n) => n.startsWith('mcp__') || n.startsWith('browser_'))).toEqual([]);
    expect(systemOf(unknown.first)).not.toContain('Book economy class only.');
    const shown = await call(app(), `/tasks/${unknown.taskId}`, { key: a.key });
    expect(shown.body.task.skills).toEqual(['no-such-skill']);

    // The account's browser skill named by its id offers the browser tools.
    const browserSkill = (await call(app(), '/skills?kind=browser', { key: acct.key })).body.skills[0];
    const byId = await runWith(a, 'Browse by id', [browserSkill.id]);
    expect(toolsOf(byId.first)).toEqual(expect.arrayContaining(BROWSER));
    expect(toolsOf(byId.first).filter((n) => n.startsWith('mcp__'))).toEqual([]);
  });

  it('a task the assistant creates keeps its creator’s skills[], so a limited task cannot widen them', async () => {
    const a = await person(await newAccount(app()));
    await install(a, { kind: 'mcp', mcpServerUrl: mcp.url, name: 'desk-a' });
    const { taskId } = await runWith(
      a,
      'Delegate the follow-up',
      ['desk-a'],
      [{ toolCalls: [{ name: 'create_task', arguments: { title: 'The follow-up', needsApproval: true } }] }, { text: 'Created.' }],
    );
    const [created] = await db()
      .select()
      .from(tasks)
      .where(and(eq(tasks.userId, a.id), eq(tasks.title, 'The follow-up')));
    expect(created).toMatchObject({ createdBy: 'agent', skills: ['desk-a'] });
    expect(created.id).not.toBe(taskId);
  });

  it('an empty skills[] given explicitly is every skill, as when it is left out', async () => {
    const a = await person(await newAccount(app()));
    await install(a, { kind: 'mcp', mcpServerUrl: mcp.url, name: 'desk-a' });
    const { first } = await runWith(a, 'Plain task', []);
    expect(toolsOf(first)).toEqual(expect.arrayContaining(['mcp__desk-a__lookup_weather', ...BROWSER]));
  });
});
