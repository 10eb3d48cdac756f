import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skills } from '@/db/schema';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { startTestMcpServer, type TestMcpServer } from '../helpers/mcp-server';
import { useTestServer } from '../helpers/server';

/** The skills API (spec document 2: POST /skills; the read, update, list and delete paths it leaves "not shown"). */
const app = useTestServer();
let mcp: TestMcpServer;
let keyed: TestMcpServer;
beforeAll(async () => {
  process.env.STEWARD_MCP_ALLOWED_RANGES = '127.0.0.0/8';
  mcp = await startTestMcpServer({ name: 'Weather Desk' });
  keyed = await startTestMcpServer({ apiKey: 'sk-skill-secret-77' });
});
afterAll(async () => {
  delete process.env.STEWARD_MCP_ALLOWED_RANGES;
  await mcp.close();
  await keyed.close();
});

async function person(acct: AccountFixture) {
  const u = await newUser(app(), acct);
  return { ...u, key: await userKey(app(), acct, u.id) };
}
const workflow = (extra: Record<string, unknown> = {}) => ({
  kind: 'workflow',
  name: 'morning-brief',
  title: 'Morning brief',
  description: 'Summarise my day every morning',
  instructions: 'Read my calendar and list what matters.',
  triggers: [{ on: 'cron', schedule: { frequency: 'daily', hour: 7, minute: 30 }, timezone: 'Europe/Paris' }],
  ...extra,
});

describe('workflows', () => {
  it('are created for the user, with the schedule type inferred, then read, listed, changed and deleted', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const made = await call(app(), '/skills', { key: a.key, body: workflow({ maxRuns: 10, cooldownMs: 60_000, overflowBehavior: 'drop' }) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const skill = made.body.skill;
    expect(skill).toMatchObject({ kind: 'workflow', name: 'morning-brief', scope: 'user', ownerUserId: a.id, scheduleType: 'recurring', maxRuns: 10, cooldownMs: 60_000, overflowBehavior: 'drop', runCount: 0, enabled: true, mcp: null });
    expect((await call(app(), `/skills/${skill.id}`, { key: a.key })).body.skill).toEqual(skill);
    expect((await call(app(), '/skills?kind=workflow', { key: a.key })).body).toMatchObject({ total: 1, skills: [{ id: skill.id }] });

    const manual = await call(app(), '/skills', { key: a.key, body: workflow({ name: 'on-demand', triggers: [{ on: 'manual' }] }) });
    expect(manual.body.skill.scheduleType).toBe('trigger-based');

    const changed = await call(app(), `/skills/${skill.id}`, { method: 'PATCH', key: a.key, body: { enabled: false, title: 'Brief' } });
    expect(changed.body.skill).toMatchObject({ enabled: false, title: 'Brief' });
    const deleted = await call(app(), `/skills/${skill.id}`, { method: 'DELETE', key: a.key });
    expect(deleted.body).toEqual({ ok: true, skill: { id: skill.id, deleted: true } });
    expect((await call(app(), `/skills/${skill.id}`, { key: a.key })).status).toBe(404);
  });

  it('refuse bad bodies naming the fields, a taken name, and another user’s skill', async () => {
    const acct = await newAccount(app());
    const [a, b] = [await person(acct), await person(acct)];
    const bad = await call(app(), '/skills', { key: a.key, body: { kind: 'workflow', name: 'Not A Slug!', title: 'x', description: 'y', triggers: [] } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('name');
    expect(JSON.stringify(bad.body)).toContain('triggers');
    const badTrigger = await call(app(), '/skills', { key: a.key, body: workflow({ triggers: [{ on: 'sometimes' }] }) });
    expect(badTrigger.status).toBe(400);
    expect((await call(app(), '/skills', { key: a.key, body: { kind: 'plugin' } })).status).toBe(400);

    const made = await call(app(), '/skills', { key: a.key, body: workflow() });
    expect((await call(app(), '/skills', { key: a.key, body: workflow() })).status).toBe(409);
    // Names are per owner: b may use the same one.
    expect((await call(app(), '/skills', { key: b.key, body: workflow() })).status).toBe(201);
    for (const [method, body] of [['GET'], ['PATCH', { title: 'Mine' }], ['DELETE']] as const) {
      expect((await call(app(), `/skills/${made.body.skill.id}`, { method, key: b.key, body })).status, method).toBe(404);
    }
    // b's own workflow and the account's browser skill (every account has it).
    expect((await call(app(), '/skills', { key: b.key })).body.skills.map((s: { kind: string }) => s.kind)).toEqual(['workflow', 'browser']);
  });

  it('made with an account key alone are app-wide: every user sees them, only the account key changes them', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const made = await call(app(), '/skills', { key: acct.key, body: workflow({ name: 'team-digest' }) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.skill).toMatchObject({ scope: 'account', ownerUserId: null });
    // Beside the account's browser skill, made with the account.
    expect((await call(app(), '/skills', { key: a.key })).body.skills.map((s: { id: string; kind: string }) => (s.kind === 'browser' ? 'browser' : s.id))).toEqual([made.body.skill.id, 'browser']);
    expect((await call(app(), `/skills/${made.body.skill.id}`, { method: 'PATCH', key: a.key, body: { title: 'Mine now' } })).status).toBe(403);
    expect((await call(app(), `/skills/${made.body.skill.id}`, { method: 'PATCH', key: acct.key, body: { title: 'Digest' } })).body.skill.title).toBe('Digest');
    // Another account sees nothing.
    const other = await newAccount(app(), 'Other');
    expect((await call(app(), `/skills/${made.body.skill.id}`, { key: other.key })).status).toBe(404);
  });
});

describe('MCP servers', () => {
  it('take name, title and description from the server, list its tools, and keep an API key sealed', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const made = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', mcpServerUrl: mcp.url } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.skill).toMatchObject({ kind: 'mcp', name: 'weather-desk', mcp: { serverUrl: mcp.url, transport: 'streamable-http', authType: 'none', serverName: 'Weather Desk' } });
    expect(made.body.skill.mcp.tools.length).toBeGreaterThan(0);
    for (const t of made.body.skill.mcp.tools) expect(t.name).toBe(`mcp__weather-desk__${t.tool}`);

    const withKey = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', mcpServerUrl: keyed.url, mcpAuthType: 'api_key', mcpApiKey: 'sk-skill-secret-77', name: 'keyed' } });
    expect(withKey.status, JSON.stringify(withKey.body)).toBe(201);
    expect(JSON.stringify(withKey.body)).not.toContain('sk-skill-secret-77');
    const [row] = await app().database.db.select().from(skills).where(eq(skills.id, withKey.body.skill.id));
    expect(JSON.stringify(row)).not.toContain('sk-skill-secret-77');
    const wrong = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', mcpServerUrl: keyed.url, mcpAuthType: 'api_key', mcpApiKey: 'wrong', name: 'keyed-2' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error_code).toBe('mcp_unreachable');
    const noKey = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', mcpServerUrl: keyed.url, mcpAuthType: 'api_key', name: 'keyed-3' } });
    expect(noKey.status).toBe(400);
    expect(JSON.stringify(noKey.body)).toContain('mcpApiKey');
  });

  it('refuse an unreachable server and one inside the deployment’s network with a clear 400', async () => {
    const a = await person(await newAccount(app()));
    const gone = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', mcpServerUrl: 'http://127.0.0.1:1/mcp' } });
    expect(gone.status).toBe(400);
    expect(gone.body).toMatchObject({ error_code: 'mcp_unreachable' });
    const metadata = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', mcpServerUrl: 'http://169.254.169.254/mcp' } });
    expect(metadata.status).toBe(400);
    expect((await call(app(), '/skills?kind=mcp', { key: a.key })).body.total).toBe(0);
  });
});
