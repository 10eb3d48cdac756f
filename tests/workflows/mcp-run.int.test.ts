import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpToolCalls, taskActivities } from '@/db/schema';
import { skillsTable } from '@/server/workflows/mcp/skills-table';
import { call, newAccount } from '../helpers/client';
import { startTestMcpServer, type TestMcpServer } from '../helpers/mcp-server';
import { useCartHarness } from '../approvals/execution-harness';

/**
 * MCP servers as skills in a real run (spec document 4: `mcp__<skill>__<tool>`): the loopback
 * server's tools reach the model; a read passes through once and its answer comes back as
 * untrusted data; an acting tool is staged in the cart and the server is called exactly once,
 * only after the person approves; an api key reaches the server and is not stored in clear; an
 * unreachable server is refused at creation and gives a clear tool result at run time.
 */
const h = useCartHarness();
const { app, person, cells, cartOfRun, cartReaches, readCart, approve, settle } = h;
type Person = Awaited<ReturnType<typeof person>>;

let mcp: TestMcpServer;
let keyed: TestMcpServer;
const saved = process.env.STEWARD_MCP_ALLOWED_RANGES;
beforeAll(async () => {
  process.env.STEWARD_MCP_ALLOWED_RANGES = '127.0.0.0/8';
  mcp = await startTestMcpServer();
  keyed = await startTestMcpServer({ apiKey: 'sk-mcp-secret-42', name: 'keyed-desk' });
});
afterAll(async () => {
  if (saved === undefined) delete process.env.STEWARD_MCP_ALLOWED_RANGES;
  else process.env.STEWARD_MCP_ALLOWED_RANGES = saved;
  await mcp?.close();
  await keyed?.close();
});

const READ = 'mcp__weather-desk__lookup_weather';
const ACT = 'mcp__weather-desk__create_ticket';

async function install(p: Person, body: Record<string, unknown>) {
  const res = await call(app(), '/skills', { key: p.key, body: { kind: 'mcp', mcpTransport: 'streamable-http', mcpAuthType: 'none', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.skill;
}

const toolActivities = async (taskId: string) =>
  (await h.db().select().from(taskActivities).where(eq(taskActivities.taskId, taskId)).orderBy(taskActivities.createdAt)).filter((a) => a.kind === 'tool');

async function run(p: Person, title: string, calls: { name: string; arguments: unknown }[]) {
  const taskId = await h.createTask(p, { title });
  if (calls.length) h.state.llm.enqueue({ toolCalls: calls }, { text: 'Done for now.' });
  else h.state.llm.enqueue({ text: 'Nothing to do.' });
  const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Go' } });
  expect(processed.status).toBe(200);
  const runId = processed.body.process.executionId as string;
  expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
  return { taskId, runId };
}

describe('MCP skills', () => {
  it('creation takes name, title and description from the server; its tools reach the model; a read passes through once as untrusted data', async () => {
    const a = await person(await newAccount(app()));
    const skill = await install(a, { mcpServerUrl: mcp.url });
    expect(skill).toMatchObject({ name: 'weather-desk', title: 'Weather Desk', description: 'Forecasts and tickets for tests' });
    const before = mcp.calls.length;

    const { taskId } = await run(a, 'Weather check', [{ name: READ, arguments: { city: 'Lyon' } }]);
    const [first, second] = h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes('Task: Weather check'));
    const tools = (first.tools ?? []).map((t: any) => t.function);
    expect(tools.map((t: any) => t.name)).toEqual(expect.arrayContaining([READ, ACT, 'send_email']));
    expect(tools.find((t: any) => t.name === READ).parameters).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });

    expect(mcp.calls.slice(before)).toEqual([{ tool: 'lookup_weather', args: { city: 'Lyon' }, authorization: null }]);
    const toolMessage = second.messages.find((m: any) => m.role === 'tool');
    expect(toolMessage.content).toContain('<untrusted-data source="tool:mcp__weather-desk__lookup_weather">');
    expect(toolMessage.content).toContain('Sunny in Lyon');
    const [activity] = await toolActivities(taskId);
    expect(activity.toolName).toBe(READ);
    expect(activity.toolOutput).toMatchObject({ isError: false, content: expect.stringContaining('Sunny in Lyon') });
  });

  it('an acting tool is staged (the server is not called) and runs exactly once after approval', async () => {
    const a = await person(await newAccount(app()));
    await cells(a, { third_party_skills: { mode: 'manual', undoDelaySec: 0 } });
    await install(a, { mcpServerUrl: mcp.url, name: 'desk' });
    const act = 'mcp__desk__create_ticket';
    const before = mcp.calls.length;
    const { taskId, runId } = await run(a, 'Open a ticket', [{ name: act, arguments: { subject: 'Printer on fire', priority: 'high' } }]);
    await settle(500);
    expect(mcp.calls.length).toBe(before);
    const [activity] = await toolActivities(taskId);
    expect(activity.toolOutput).toMatchObject({ staged: true, done: false, release: 'manual' });

    const cart = await cartOfRun(runId);
    const shown = await readCart(a, cart.id);
    expect(shown.status).toBe('pending_approval');
    expect(shown.dispatches).toMatchObject([{ index: 0, type: 'skill_action', platform: 'mcp', actionType: 'third_party_skills', payload: { tool: 'create_ticket', arguments: { subject: 'Printer on fire', priority: 'high' } } }]);

    const approved = await approve(a, cart.id, { contentHash: shown.contentHash });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    await cartReaches(cart.id, ['executed']);
    await settle(500);
    const made = mcp.calls.slice(before);
    expect(made).toEqual([{ tool: 'create_ticket', args: { subject: 'Printer on fire', priority: 'high' }, authorization: null }]);
    const after = await readCart(a, cart.id);
    expect(after.dispatches[0].deliveryState ?? after.dispatches[0].delivery?.state).toBe('provider_accepted');
    const [record] = await h.db().select().from(mcpToolCalls).where(eq(mcpToolCalls.taskId, taskId));
    expect(record).toMatchObject({ toolName: 'create_ticket', isError: false });
    expect(JSON.stringify(record.result)).toContain('Printer on fire');
  });

  it('an api key reaches the server as a bearer token and is not stored in clear', async () => {
    const a = await person(await newAccount(app()));
    const refused = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', mcpServerUrl: keyed.url, mcpAuthType: 'api_key', mcpApiKey: 'wrong' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe('mcp_unreachable');
    const skill = await install(a, { mcpServerUrl: keyed.url, mcpAuthType: 'api_key', mcpApiKey: 'sk-mcp-secret-42' });
    const [row] = await h.db().select().from(skillsTable()!).where(eq(skillsTable()!.id, skill.id));
    expect(JSON.stringify(row)).not.toContain('sk-mcp-secret-42');
    expect(JSON.stringify(skill)).not.toContain('sk-mcp-secret-42');

    const before = keyed.calls.length;
    await run(a, 'Keyed weather', [{ name: 'mcp__keyed-desk__lookup_weather', arguments: { city: 'Oslo' } }]);
    expect(keyed.calls.slice(before)).toEqual([{ tool: 'lookup_weather', args: { city: 'Oslo' }, authorization: 'Bearer sk-mcp-secret-42' }]);
  });

  it('a server on the older SSE transport works the same in a run', async () => {
    const a = await person(await newAccount(app()));
    await install(a, { mcpServerUrl: mcp.sseUrl, mcpTransport: 'sse', name: 'sse-desk' });
    const before = mcp.calls.length;
    const { taskId } = await run(a, 'SSE weather', [{ name: 'mcp__sse-desk__lookup_weather', arguments: { city: 'Bern' } }]);
    expect(mcp.calls.slice(before)).toEqual([{ tool: 'lookup_weather', args: { city: 'Bern' }, authorization: null }]);
    const [activity] = await toolActivities(taskId);
    expect(activity.toolOutput).toMatchObject({ content: expect.stringContaining('Sunny in Bern') });
  });

  it('another user does not get a user’s MCP tools; an unreachable server is a 400 at creation and a clear tool result at run time', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    const temp = await startTestMcpServer({ name: 'flaky' });
    await install(a, { mcpServerUrl: temp.url });
    await temp.close();

    const refused = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', mcpServerUrl: temp.url } });
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe('mcp_unreachable');
    expect(refused.body.error).toContain(temp.url);

    const { taskId } = await run(a, 'Flaky weather', [{ name: 'mcp__flaky__lookup_weather', arguments: { city: 'Rome' } }]);
    const [activity] = await toolActivities(taskId);
    expect((activity.toolOutput as any).error).toMatch(/could not be (reached|used)/);
    expect((activity.toolOutput as any).error).toContain(temp.url);

    await run(b, 'Not mine', []);
    const [req] = h.state.llm.requests.filter((r) => JSON.stringify(r.messages).includes('Task: Not mine'));
    expect((req.tools ?? []).map((t: any) => t.function.name).filter((n: string) => n.startsWith('mcp__'))).toEqual([]);
  });
});
