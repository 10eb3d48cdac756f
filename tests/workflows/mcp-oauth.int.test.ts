import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskActivities } from '@/db/schema';
import { skillsTable } from '@/server/workflows/mcp/skills-table';
import { call, newAccount } from '../helpers/client';
import { startOauthMcpServer, type TestOauthMcpServer } from '../helpers/mcp-server';
import { useRunHarness } from '../agent/run-harness';

/**
 * An `oauth` MCP skill (the MCP authorization flow): start → the authorization server's URL
 * (dynamic client registration, PKCE) → the callback exchanges the code once, seals the tokens,
 * lists the tools → a run calls the server with the token → an expired token is refreshed.
 */
const h = useRunHarness();
const { app, person } = h;

let oauth: TestOauthMcpServer;
const saved = process.env.STEWARD_MCP_ALLOWED_RANGES;
beforeAll(async () => {
  process.env.STEWARD_MCP_ALLOWED_RANGES = '127.0.0.0/8';
  oauth = await startOauthMcpServer();
});
afterAll(async () => {
  if (saved === undefined) delete process.env.STEWARD_MCP_ALLOWED_RANGES;
  else process.env.STEWARD_MCP_ALLOWED_RANGES = saved;
  await oauth?.close();
});

/** What a browser does with the authorization URL: the server redirects straight to Steward's callback; return its path and query. */
async function consent(authorizationUrl: string): Promise<string> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(back.pathname).toBe('/api/skills/oauth/callback');
  return `${back.pathname.replace(/^\/api/, '')}${back.search}`;
}

describe('oauth MCP skills', () => {
  it('authorize with PKCE and dynamic registration, then a run uses the token and refreshes it when it expired', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const b = await person(acct);
    const created = await call(app(), '/skills', { key: a.key, body: { kind: 'mcp', name: 'oauth-desk', mcpServerUrl: oauth.url, mcpAuthType: 'oauth' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const skillId = created.body.skill.id as string;

    // Another user cannot authorize (404), and a bad state is refused.
    expect((await call(app(), `/skills/${skillId}/oauth/start`, { key: b.key, body: {} })).status).toBe(404);
    const bogus = await call(app(), '/skills/oauth/callback?state=nope&code=x');
    expect(bogus.status).toBe(400);
    expect(bogus.body.error_code).toBe('oauth_state_invalid');

    const started = await call(app(), `/skills/${skillId}/oauth/start`, { key: a.key, body: {} });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const url = new URL(started.body.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('client_id')).toBe(oauth.registered[0]);
    const callback = await consent(started.body.authorizationUrl);

    const done = await call(app(), callback);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ authorized: true, tools: expect.arrayContaining(['lookup_weather', 'create_ticket']) });
    // The state is used once.
    expect((await call(app(), callback)).status).toBe(400);
    const [row] = await h.db().select().from(skillsTable()!).where(eq(skillsTable()!.id, skillId));
    expect(JSON.stringify(row)).not.toContain(oauth.issued[0]);

    h.state.llm.enqueue({ toolCalls: [{ name: 'mcp__oauth-desk__lookup_weather', arguments: { city: 'Nice' } }] }, { text: 'ok' });
    const first = await h.startTask(a, { title: 'OAuth weather' });
    await h.ended(first.runId);
    expect(oauth.calls.at(-1)).toEqual({ tool: 'lookup_weather', args: { city: 'Nice' }, authorization: `Bearer ${oauth.issued.at(-1)}` });

    oauth.expireTokens();
    const issuedBefore = oauth.issued.length;
    h.state.llm.enqueue({ toolCalls: [{ name: 'mcp__oauth-desk__lookup_weather', arguments: { city: 'Metz' } }] }, { text: 'ok' });
    const second = await h.startTask(a, { title: 'OAuth weather again' });
    await h.ended(second.runId);
    const [activity] = (await h.db().select().from(taskActivities).where(eq(taskActivities.taskId, second.taskId))).filter((x) => x.kind === 'tool');
    expect(activity.toolOutput, JSON.stringify(activity.toolOutput)).toMatchObject({ content: expect.stringContaining('Sunny in Metz') });
    expect(oauth.refreshes).toBe(1);
    expect(oauth.issued.length).toBe(issuedBefore + 1);
    expect(oauth.calls.at(-1)?.authorization).toBe(`Bearer ${oauth.issued.at(-1)}`);
  });
});
