import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthConnections } from '@/db/schema';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

/** The providers' token endpoints: any code but `bad` is accepted and answered with a workspace named after it. */
const fake = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const code = new URLSearchParams(body).get('code') ?? '';
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(code === 'bad' ? { ok: false, error: 'invalid_code' } : { ok: true, access_token: `xoxb-${code}`, team: { id: code } }));
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  Object.assign(process.env, { SLACK_CLIENT_ID: 'cid', SLACK_CLIENT_SECRET: 'csecret', SLACK_OAUTH_TOKEN_URL: `${base}/slack/token`, TEAMS_CLIENT_ID: 'tid', TEAMS_CLIENT_SECRET: 'tsecret', TEAMS_OAUTH_TOKEN_URL: `${base}/teams/token` });
});
afterAll(() => new Promise<void>((r) => fake.close(() => r())));

/** A browser: keeps the cookies Steward sets and sends them back, follows nothing by itself. */
class Browser {
  private jar = new Map<string, string>();
  async get(url: string) {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name, ...rest] = pair.split('=');
      const value = rest.join('=');
      if (/Max-Age=0/i.test(set) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }
  cookies() {
    return [...this.jar.keys()];
  }
  /** The Cookie header this browser would send now. */
  cookieHeader() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

async function slackUser() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const assistant = (await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Mine' } })).body.assistant;
  return { acct, u, key, assistant };
}

/** The customer's backend starts the flow with the user's key and hands the Location to the user's browser. */
async function start(key: string, assistantId: string, purpose: 'authorize' | 'link' = 'authorize') {
  const res = await fetch(`${app().baseUrl}/oauth/slack/assistant/${purpose}?assistantId=${assistantId}`, { headers: { Authorization: `Bearer ${key}` }, redirect: 'manual' });
  expect(res.status).toBe(302);
  expect(res.headers.get('set-cookie')).toBeNull();
  return res.headers.get('location')!;
}

/** The browser opens the begin link and lands on the provider's consent page: returns the state the provider will send back. */
async function begin(browser: Browser, link: string) {
  const res = await browser.get(link);
  expect(res.status).toBe(302);
  const consent = new URL(res.headers.get('location')!);
  expect(consent.origin + consent.pathname).toBe('https://slack.com/oauth/v2/authorize');
  return consent.searchParams.get('state')!;
}

const callback = (browser: Browser, state: string, code: string, provider = 'slack') =>
  browser.get(`${app().baseUrl}/oauth/callback/${provider}?code=${code}&state=${encodeURIComponent(state)}`);

const connections = async (accountId: string) => app().database.db.select().from(oauthConnections).where(eq(oauthConnections.accountId, accountId));

describe('OAuth state', () => {
  it('is bound to the browser that began the connection: a stolen state finishes nothing elsewhere', async () => {
    const { acct, key, assistant } = await slackUser();
    const victim = new Browser();
    const state = await begin(victim, await start(key, assistant.id));
    const cookie = victim.cookies()[0];
    expect(cookie).toMatch(/^steward_oauth_/);

    // The state leaks (provider logs, Referer, history); the attacker answers it with their own workspace.
    const attacker = new Browser();
    const stolen = await callback(attacker, state, 'attacker-workspace');
    expect(stolen.status).toBe(403);
    expect((await stolen.json()).error_code).toBe('oauth_state_unbound');
    // Opening the victim's begin link again from elsewhere is refused too.
    const startLink = await start(key, assistant.id);
    await begin(victim, startLink);
    expect((await attacker.get(startLink)).status).toBe(400);
    expect(await connections(acct.accountId)).toHaveLength(0);

    // The victim's browser finishes its own flow, and its binding cookie is cleared.
    const done = await callback(victim, state, 'victim-workspace');
    expect(done.status).toBe(200);
    expect((await done.json()).connection).toMatchObject({ provider: 'slack', purpose: 'install', assistant: assistant.id });
    expect(victim.cookies()).not.toContain(cookie);
    expect((await connections(acct.accountId)).map((c) => c.details)).toEqual([{ ok: true, team: { id: 'victim-workspace' } }]);
  });

  it('is accepted once: a replay, even from the same browser, is refused and stores nothing', async () => {
    const { acct, key, assistant } = await slackUser();
    const browser = new Browser();
    const state = await begin(browser, await start(key, assistant.id, 'link'));
    const saved = browser.cookieHeader();
    expect((await callback(browser, state, 'first')).status).toBe(200);

    // Replayed with exactly the cookie the browser sent (a saved request, say).
    const res = await fetch(`${app().baseUrl}/oauth/callback/slack?code=second&state=${encodeURIComponent(state)}`, { headers: { cookie: saved } });
    expect(res.status).toBe(400);
    expect((await res.json()).error_code).toBe('oauth_state_used');
    expect((await callback(new Browser(), state, 'third')).status).toBe(403);
    expect((await connections(acct.accountId)).map((c) => c.details)).toEqual([{ ok: true, team: { id: 'first' } }]);

    // A failed exchange uses the state up as well: the user starts again.
    const again = new Browser();
    const next = await begin(again, await start(key, assistant.id));
    expect((await callback(again, next, 'bad')).status).toBe(400);
    const twice = await callback(again, next, 'good');
    expect(twice.status).toBe(400);
    expect((await twice.json()).error_code).toBe('oauth_state_used');
    expect(await connections(acct.accountId)).toHaveLength(1);
  });

  it('two connections started side by side in one browser both finish; a state is good for its provider only', async () => {
    const { acct, u, key, assistant } = await slackUser();
    const browser = new Browser();
    const one = await begin(browser, await start(key, assistant.id));
    const two = await begin(browser, await start(key, assistant.id, 'link'));
    expect(browser.cookies()).toHaveLength(2);
    expect((await callback(browser, one, 'one', 'teams')).status).toBe(403);
    expect((await callback(browser, two, 'two')).status).toBe(200);
    expect((await callback(browser, one, 'one')).status).toBe(200);
    expect((await connections(acct.accountId)).map((c) => c.purpose).sort()).toEqual(['install', 'link']);

    // Teams goes through the same begin link.
    const teamsStart = await fetch(`${app().baseUrl}/oauth/teams/authorize?target=team&targetId=${u.teamId}`, { headers: { Authorization: `Bearer ${key}` }, redirect: 'manual' });
    const teamsBegin = await browser.get(teamsStart.headers.get('location')!);
    const consent = new URL(teamsBegin.headers.get('location')!);
    expect(consent.searchParams.get('redirect_uri')).toBe(`${app().baseUrl}/oauth/callback/teams`);
    expect((await new Browser().get(`${app().baseUrl}/oauth/callback/teams?code=t&state=${encodeURIComponent(consent.searchParams.get('state')!)}`)).status).toBe(403);
    expect((await callback(browser, consent.searchParams.get('state')!, 't', 'teams')).status).toBe(200);
  });

  it('a forged or tampered state is refused at the begin link and at the callback', async () => {
    const { key, assistant } = await slackUser();
    const browser = new Browser();
    const link = new URL(await start(key, assistant.id));
    const state = link.searchParams.get('state')!;
    const tampered = `${state.slice(0, -2)}xx`;
    expect((await browser.get(`${app().baseUrl}/oauth/begin?state=${encodeURIComponent(tampered)}`)).status).toBe(400);
    expect((await callback(browser, tampered, 'x')).status).toBe(400);
    expect((await browser.get(`${app().baseUrl}/oauth/begin`)).status).toBe(400);
  });
});
