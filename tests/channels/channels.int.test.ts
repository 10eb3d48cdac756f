import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePolicy } from '@/server/policy/team-policy';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { eq } from 'drizzle-orm';
import { oauthConnections } from '@/db/schema';
import { openJson } from '@/server/secrets/sealed';

const app = useTestServer();

/** A loopback fake of the providers' token endpoints: records what was sent, answers like the provider. */
const exchanges: Array<Record<string, string>> = [];
const fake = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const form = Object.fromEntries(new URLSearchParams(body));
    exchanges.push({ path: req.url ?? '', ...form });
    const good = form.code === 'good-code';
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(good ? { ok: true, access_token: 'xoxb-fake', team: { id: 'T1' } } : { ok: false, error: 'invalid_code' }));
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  Object.assign(process.env, { SLACK_CLIENT_ID: 'cid', SLACK_CLIENT_SECRET: 'csecret', SLACK_OAUTH_TOKEN_URL: `${base}/slack/token`, TEAMS_CLIENT_ID: 'tid', TEAMS_CLIENT_SECRET: 'tsecret', TEAMS_OAUTH_TOKEN_URL: `${base}/teams/token` });
});
afterAll(() => new Promise<void>((r) => fake.close(() => r())));

async function userWithAssistant() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  return { acct, u, key };
}

describe('phone-line requests', () => {
  it('400 without an assistant; one pending request per user; mine returns the latest or null', async () => {
    const { u, key } = await userWithAssistant();
    expect((await call(app(), '/phone-line-requests/mine', { key })).body).toEqual({ ok: true, request: null });
    expect((await call(app(), '/phone-line-requests', { key, body: { requestedChannels: { sms: true } } })).status).toBe(400);
    const assistant = (await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Line' } })).body.assistant;
    const res = await call(app(), '/phone-line-requests', { key, body: { requestedChannels: { sms: true, voice: true }, notes: 'area code 415' } });
    expect(res.status).toBe(201);
    expect(res.body.request).toMatchObject({ assistant: assistant.id, requestedChannels: { imessage: false, sms: true, whatsapp: false, voice: true }, notes: 'area code 415', status: 'pending' });
    expect((await call(app(), '/phone-line-requests', { key, body: {} })).status).toBe(400);
    expect((await call(app(), '/phone-line-requests/mine', { key })).body.request.id).toBe(res.body.request.id);
  });
});

describe('Slack apps', () => {
  it('marketplace: account key and an account-wide assistant only', async () => {
    const { acct, u, key } = await userWithAssistant();
    const shared = (await call(app(), '/assistants', { key: acct.key, body: { name: 'Ava', email: 'ava@slack.example' } })).body.assistant;
    const own = (await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Mine' } })).body.assistant;
    const created = await call(app(), `/assistants/${shared.id}/slack-apps`, { key: acct.key, body: { kind: 'marketplace', botDisplayName: 'Ava' } });
    expect(created.status).toBe(201);
    expect(created.body.slackApp).toMatchObject({ kind: 'marketplace', status: 'pending_credentials' });
    expect(created.body.manifest.eventsUrl).toContain(`/api/slack/events/${created.body.slackApp.id}`);
    expect(created.body.manifest.createAppUrl).toContain('manifest_json=');
    expect(created.body.manifest.manifestJson.display_information.name).toBe('Ava');
    const again = await call(app(), `/assistants/${shared.id}/slack-apps`, { key: acct.key, body: { kind: 'marketplace', botDisplayName: 'Ava' } });
    expect(again.status).toBe(200);
    expect(again.body.slackApp.id).toBe(created.body.slackApp.id);
    expect((await call(app(), `/assistants/${shared.id}/slack-apps`, { key, body: { kind: 'marketplace', botDisplayName: 'x' } })).status).toBe(403);
    const notSystem = await call(app(), `/assistants/${own.id}/slack-apps`, { key: acct.key, body: { kind: 'marketplace', botDisplayName: 'x' } });
    expect(notSystem.body).toMatchObject({ status: 400, error_code: 'not_system_assistant' });
  });

  it('workspace: needs the user, refuses account-wide assistants and organizations that disallow it', async () => {
    const { acct, u, key } = await userWithAssistant();
    const shared = (await call(app(), '/assistants', { key: acct.key, body: { name: 'Ava', email: 'ava2@slack.example' } })).body.assistant;
    const own = (await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Mine' } })).body.assistant;
    expect((await call(app(), `/assistants/${own.id}/slack-apps`, { key: acct.key, body: { kind: 'workspace', botDisplayName: 'x' } })).body.error_code).toBe('user_required');
    expect((await call(app(), `/assistants/${shared.id}/slack-apps`, { key, body: { kind: 'workspace', botDisplayName: 'x' } })).body.error_code).toBe('system_assistant_console_only');
    const ok = await call(app(), `/assistants/${own.id}/slack-apps`, { key, body: { kind: 'workspace', botDisplayName: 'Mine' } });
    expect(ok.status).toBe(201);
    const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Strict' } })).body.organization;
    await call(app(), `/users/${u.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
    await writePolicy(app().database.db, 'organization', org.id, acct.accountId, { capabilities: { slackWorkspaceApps: 'off' } });
    const second = (await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Second' } })).body.assistant;
    expect((await call(app(), `/assistants/${second.id}/slack-apps`, { key, body: { kind: 'workspace', botDisplayName: 'x' } })).body.error_code).toBe('slack_not_allowed');
  });
});

/** A start made with the user's key, then the begin link opened in a browser: returns the provider URL and the browser's binding cookie. */
async function beginInBrowser(startPath: string, key: string) {
  const start = await fetch(`${app().baseUrl}${startPath}`, { headers: { Authorization: `Bearer ${key}` }, redirect: 'manual' });
  expect(start.status).toBe(302);
  const begin = new URL(start.headers.get('location')!);
  expect(begin.pathname).toBe('/api/oauth/begin');
  const opened = await fetch(begin, { redirect: 'manual' });
  expect(opened.status).toBe(302);
  return { location: new URL(opened.headers.get('location')!), cookie: opened.headers.get('set-cookie')!.split(';')[0] };
}

describe('OAuth', () => {
  it('Slack install redirects through the begin link to Slack with a signed state; the callback exchanges the code at the token endpoint and stores the connection', async () => {
    const { u, key } = await userWithAssistant();
    const own = (await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Mine' } })).body.assistant;
    const { location, cookie } = await beginInBrowser(`/oauth/slack/assistant/authorize?assistantId=${own.id}`, key);
    expect(location.origin + location.pathname).toBe('https://slack.com/oauth/v2/authorize');
    expect(location.searchParams.get('client_id')).toBe('cid');
    const state = location.searchParams.get('state')!;
    const redirectUri = location.searchParams.get('redirect_uri')!;
    expect(redirectUri).toContain('/api/oauth/callback/slack');

    const bad = await call(app(), `/oauth/callback/slack?code=bad-code&state=${state}`, { headers: { cookie } });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe('oauth_exchange_failed');
    // A state is used once, even when the exchange failed: start again.
    expect((await call(app(), `/oauth/callback/slack?code=good-code&state=${state}`, { headers: { cookie } })).body.error_code).toBe('oauth_state_used');
    const second = await beginInBrowser(`/oauth/slack/assistant/authorize?assistantId=${own.id}`, key);
    const secondState = second.location.searchParams.get('state')!;
    expect((await call(app(), `/oauth/callback/teams?code=good-code&state=${secondState}`, { headers: { cookie: second.cookie } })).status).toBe(403);
    expect((await call(app(), `/oauth/callback/slack?code=good-code&state=${secondState}x`, { headers: { cookie: second.cookie } })).status).toBe(400);
    const done = await call(app(), `/oauth/callback/slack?code=good-code&state=${secondState}`, { headers: { cookie: second.cookie } });
    expect(done.status).toBe(200);
    expect(done.body.connection).toMatchObject({ provider: 'slack', purpose: 'install', assistant: own.id });
    expect(exchanges.at(-1)).toMatchObject({ path: '/slack/token', client_id: 'cid', client_secret: 'csecret', code: 'good-code', redirect_uri: redirectUri });
    // The provider's tokens are sealed at rest; only the non-secret details are readable.
    const [row] = await app().database.db.select().from(oauthConnections).where(eq(oauthConnections.id, done.body.connection.id));
    expect(row.tokens).not.toContain('xoxb-fake');
    expect(row.tokens.split('.')).toHaveLength(5);
    expect(row.details).toEqual({ ok: true, team: { id: 'T1' } });
    expect(await openJson(app().database.db, row.tokens, 'oauth:slack')).toEqual({ ok: true, access_token: 'xoxb-fake', team: { id: 'T1' } });
    await expect(openJson(app().database.db, row.tokens, 'oauth:teams')).rejects.toThrow(/not oauth:teams/);
    await call(app(), `/assistants/${own.id}/slack-apps`, { key, body: { kind: 'workspace', botDisplayName: 'Mine' } });
    const listed = (await call(app(), '/assistants', { key })).body.assistants.find((x: { id: string }) => x.id === own.id);
    expect(listed.slack).toMatchObject({ configured: true, connected: true });
    expect(listed.slack.deepLinks.app).toContain('team=T1');
    const link = await beginInBrowser(`/oauth/slack/assistant/link?assistantId=${own.id}`, key);
    expect(link.location.searchParams.get('user_scope')).toContain('identity.basic');
  });

  it('Teams: a team admin connects their team; others are refused; without a Teams app it is 400', async () => {
    const { acct, u, key } = await userWithAssistant();
    const other = await newUser(app(), acct);
    const { location, cookie } = await beginInBrowser(`/oauth/teams/authorize?target=team&targetId=${u.teamId}`, key);
    const state = location.searchParams.get('state')!;
    const done = await call(app(), `/oauth/callback/teams?code=good-code&state=${state}`, { headers: { cookie } });
    expect(done.body.connection).toMatchObject({ provider: 'teams', target: { target: 'team', targetId: u.teamId } });
    expect(exchanges.at(-1)).toMatchObject({ path: '/teams/token', grant_type: 'authorization_code' });
    const refused = await call(app(), `/oauth/teams/authorize?target=team&targetId=${u.teamId}`, { key: acct.key, as: other.email });
    expect(refused.status).toBe(404);
    const saved = process.env.TEAMS_CLIENT_ID;
    delete process.env.TEAMS_CLIENT_ID;
    const unconfigured = await call(app(), `/oauth/teams/authorize?target=team&targetId=${u.teamId}`, { key });
    process.env.TEAMS_CLIENT_ID = saved;
    expect(unconfigured.body.error_code).toBe('teams_not_configured');
  });
});
