import { eq } from 'drizzle-orm';
import { TRPCError } from '@trpc/server';
import { describe, expect, it, vi } from 'vitest';
import { slackAppCredentials, users } from '@/db/schema';
import { setHostedDomain } from '@/server/hosted/accounts';
import { AppError } from '@/server/http/errors';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * The hosted app's organization capability switches and per-assistant Slack app setup go through
 * tRPC (organizations.capabilities / setCapabilities; channels.slackApp / createSlackApp /
 * saveSlackAppCredentials / slackInstallLink), calling the REST endpoints' services as the
 * session's person: the same rules (a plain member 403, another account 404, someone else's
 * assistant 404), and a Slack app's secrets are never answered.
 */

const app = useTestServer();

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (e instanceof TRPCError && e.cause instanceof AppError) return `${e.code}:${e.cause.code}`;
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
};

/** An account on its own hosted domain. */
async function hostedAccount(name: string) {
  const acct = await newAccount(app(), name);
  const host = `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now().toString(36)}.steward.test`;
  await setHostedDomain(app().database.db, acct.accountId, host);
  return { ...acct, host };
}

/** The session cookie of a user of the account, as the hosted app's sign-in sets it. */
async function sessionCookie(userId: string) {
  const db = app().database.db;
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  return (await sessionSetCookie(db, row!, 'email', true)).split(';')[0]!;
}

/** The routers as that user's browser on the account's hosted domain reaches them. */
async function signedIn(acct: { host: string }, userId: string) {
  return appRouter.createCaller(await portalContext(app().database.db, new Headers({ host: acct.host, cookie: await sessionCookie(userId) })));
}

/** An organization with an admin and a plain member. */
async function orgWithPeople(acct: AccountFixture) {
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: `Org ${Date.now()}` } })).body.organization;
  const admin = await newUser(app(), acct);
  expect((await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } })).status).toBe(200);
  const member = await newUser(app(), acct);
  expect((await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } })).status).toBe(200);
  return { org: org as { id: string }, admin, member };
}

const restCapabilities = async (acct: AccountFixture, orgId: string) => (await call(app(), `/organizations/${orgId}/settings/capabilities`, { key: acct.key })).body;

describe('organizations.capabilities and organizations.setCapabilities', () => {
  it('an admin reads the switches and sets one off (and locks another); the REST API reads the same', async () => {
    const acct = await hostedAccount('Caps admin');
    const { org, admin } = await orgWithPeople(acct);
    const asAdmin = await signedIn(acct, admin.id);

    const before = await asAdmin.organizations.capabilities({ orgId: org.id });
    expect(before).toMatchObject({ ok: true, level: 'organization', ownerId: org.id, capabilities: { browserAutomation: null, browserAutomationLocked: false }, lockedAbove: {} });
    expect(before.effective.capabilities).toMatchObject({ slackWorkspaceApps: 'on', browserAutomation: 'on', workspaceCli: 'on' });

    const set = await asAdmin.organizations.setCapabilities({ orgId: org.id, capabilities: { browserAutomation: 'off', workspaceCli: 'on', workspaceCliLocked: true } });
    expect(set).toMatchObject({ capabilities: { browserAutomation: 'off', workspaceCli: 'on', workspaceCliLocked: true }, effective: { capabilities: { browserAutomation: 'off', workspaceCli: 'on' } } });
    expect(await asAdmin.organizations.capabilities({ orgId: org.id })).toEqual(set);
    expect(await restCapabilities(acct, org.id)).toMatchObject({ capabilities: { browserAutomation: 'off', workspaceCliLocked: true }, effective: { capabilities: { browserAutomation: 'off' } } });

    // Inheriting again; the service's rules and the contract's strictness answer as REST does.
    expect((await asAdmin.organizations.setCapabilities({ orgId: org.id, capabilities: { browserAutomation: null } })).effective.capabilities.browserAutomation).toBe('on');
    expect(await codeOf(asAdmin.organizations.setCapabilities({ orgId: org.id, capabilities: { mcpServersLocked: true } }))).toBe('BAD_REQUEST:bad_request');
    expect(await codeOf(asAdmin.organizations.setCapabilities({ orgId: org.id, capabilities: { browserAutomation: 'maybe' } as never }))).toBe('BAD_REQUEST');
    expect(await codeOf(asAdmin.organizations.setCapabilities({ orgId: org.id, capabilities: { nonsense: 'off' } as never }))).toBe('BAD_REQUEST');
    expect((await restCapabilities(acct, org.id)).capabilities).toMatchObject({ browserAutomation: null, mcpServers: null, mcpServersLocked: false });
  });

  it('a switch the account locked is shown as locked above, and changing it is FORBIDDEN', async () => {
    const acct = await hostedAccount('Caps locked');
    const { org, admin } = await orgWithPeople(acct);
    expect((await call(app(), '/settings/capabilities', { method: 'PATCH', key: acct.key, body: { capabilities: { mcpServers: 'off', mcpServersLocked: true } } })).status).toBe(200);
    const asAdmin = await signedIn(acct, admin.id);
    expect((await asAdmin.organizations.capabilities({ orgId: org.id })).lockedAbove).toEqual({ mcpServers: { value: 'off', by: 'account' } });
    expect(await codeOf(asAdmin.organizations.setCapabilities({ orgId: org.id, capabilities: { mcpServers: 'on' } }))).toBe('FORBIDDEN:forbidden');
    expect((await restCapabilities(acct, org.id)).capabilities.mcpServers).toBeNull();
  });

  it('a plain member of the organization is FORBIDDEN to read or set them; nothing changes', async () => {
    const acct = await hostedAccount('Caps member');
    const { org, member } = await orgWithPeople(acct);
    const asMember = await signedIn(acct, member.id);
    expect(await codeOf(asMember.organizations.capabilities({ orgId: org.id }))).toBe('FORBIDDEN:forbidden');
    expect(await codeOf(asMember.organizations.setCapabilities({ orgId: org.id, capabilities: { slackWorkspaceApps: 'off' } }))).toBe('FORBIDDEN:forbidden');
    expect((await restCapabilities(acct, org.id)).capabilities.slackWorkspaceApps).toBeNull();
  });

  it('an admin of another account’s organization gets NOT_FOUND for this one; nothing changes', async () => {
    const acct = await hostedAccount('Caps victim');
    const { org } = await orgWithPeople(acct);
    const other = await hostedAccount('Caps stranger');
    const { admin: strangerAdmin } = await orgWithPeople(other);
    const asStranger = await signedIn(other, strangerAdmin.id);
    expect(await codeOf(asStranger.organizations.capabilities({ orgId: org.id }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(asStranger.organizations.setCapabilities({ orgId: org.id, capabilities: { browserAutomation: 'off' } }))).toBe('NOT_FOUND:not_found');
    expect((await restCapabilities(acct, org.id)).capabilities.browserAutomation).toBeNull();
  });

  it('setCapabilities is a mutation behind the CSRF check: a cross-site POST is 403 and changes nothing; a same-origin one saves', async () => {
    vi.stubEnv('DATABASE_URL', app().database.pool.options.connectionString as string);
    try {
      const { trpcHandler } = await import('@/server/trpc/handler');
      const acct = await hostedAccount('Caps csrf');
      const { org, admin } = await orgWithPeople(acct);
      const cookie = await sessionCookie(admin.id);
      const post = (origin: string) =>
        trpcHandler(
          new Request(`https://${acct.host}/api/trpc/organizations.setCapabilities`, {
            method: 'POST',
            headers: { host: acct.host, origin, cookie, 'content-type': 'application/json' },
            body: JSON.stringify({ orgId: org.id, capabilities: { workspaceHandoff: 'off' } }),
          }),
        );
      expect((await post('https://evil.example')).status).toBe(403);
      expect((await restCapabilities(acct, org.id)).capabilities.workspaceHandoff).toBeNull();
      const same = await post(`https://${acct.host}`);
      expect(same.status, await same.clone().text()).toBe(200);
      expect((await restCapabilities(acct, org.id)).capabilities.workspaceHandoff).toBe('off');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('channels.slackApp, createSlackApp, saveSlackAppCredentials and slackInstallLink', () => {
  const CLIENT_SECRET = 'client-secret-7f3a9c1e55';
  const SIGNING_SECRET = 'signing-secret-0b8d2e4f99';

  /** A person with an assistant of their own (on their roster). */
  async function personWithAssistant(acct: AccountFixture & { host: string }) {
    const person = await newUser(app(), acct);
    const key = await userKey(app(), acct, person.id);
    const hired = await call(app(), `/users/${person.id}/assistants`, { key, body: { name: 'Ada' } });
    expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
    return { person, assistantId: hired.body.assistant.id as string, caller: await signedIn(acct, person.id) };
  }

  it('creates the person’s app, takes its credentials without ever answering a secret, and starts its install', async () => {
    const acct = await hostedAccount('Slack setup');
    const { assistantId, caller } = await personWithAssistant(acct);
    expect(await caller.channels.slackApp({ assistantId })).toEqual({ slackApp: null });

    const created = await caller.channels.createSlackApp({ assistantId, botDisplayName: '  Ada  ' });
    expect(created).toMatchObject({ created: true, slackApp: { status: 'pending_credentials' } });
    expect(created.createAppUrl).toMatch(/^https:\/\/api\.slack\.com\/apps\?new_app=1&manifest_json=/);
    const appId = created.slackApp.id;
    // Repeating answers the same app.
    expect(await caller.channels.createSlackApp({ assistantId, botDisplayName: 'Ada' })).toMatchObject({ created: false, slackApp: { id: appId } });
    expect(await caller.channels.slackApp({ assistantId })).toEqual({
      slackApp: { id: appId, status: 'pending_credentials', createAppUrl: created.createAppUrl, credentials: { clientId: null, source: 'none' }, installations: [] },
    });

    const saved = await caller.channels.saveSlackAppCredentials({ appId, clientId: '1234567890.0987654321', clientSecret: CLIENT_SECRET, signingSecret: SIGNING_SECRET, slackAppId: 'A0TESTAPP' });
    expect(saved).toEqual({ slackApp: { id: appId, status: 'active', credentials: { clientId: '1234567890.0987654321', source: 'app' }, installations: [] } });
    const read = await caller.channels.slackApp({ assistantId });
    expect(read.slackApp).toMatchObject({ status: 'active', credentials: { clientId: '1234567890.0987654321', source: 'app' } });
    for (const answer of [saved, read]) {
      const text = JSON.stringify(answer);
      expect(text).not.toContain(CLIENT_SECRET);
      expect(text).not.toContain(SIGNING_SECRET);
    }
    // Stored sealed: the row holds neither secret in the clear.
    const [row] = await app().database.db.select().from(slackAppCredentials).where(eq(slackAppCredentials.appId, appId));
    expect(JSON.stringify(row)).not.toContain(CLIENT_SECRET);
    expect((await call(app(), `/slack-apps/${appId}`, { key: acct.key })).body.slackApp).toMatchObject({ status: 'active', credentials: { source: 'app', hasClientSecret: true } });

    // Bad credentials are refused by the contract, before any service.
    expect(await codeOf(caller.channels.saveSlackAppCredentials({ appId, clientId: 'not-an-id', clientSecret: CLIENT_SECRET, signingSecret: SIGNING_SECRET }))).toBe('BAD_REQUEST');

    const { url } = await caller.channels.slackInstallLink({ assistantId });
    expect(url).toMatch(/\/api\/oauth\/begin\?state=/);
  });

  it('another person’s assistant and app are NOT_FOUND for every procedure; their secrets stay theirs', async () => {
    const acct = await hostedAccount('Slack other');
    const owner = await personWithAssistant(acct);
    const created = await owner.caller.channels.createSlackApp({ assistantId: owner.assistantId, botDisplayName: 'Ada' });
    const intruder = await personWithAssistant(acct);

    expect(await codeOf(intruder.caller.channels.slackApp({ assistantId: owner.assistantId }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(intruder.caller.channels.createSlackApp({ assistantId: owner.assistantId, botDisplayName: 'Mine now' }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(intruder.caller.channels.slackInstallLink({ assistantId: owner.assistantId }))).toBe('NOT_FOUND:not_found');
    expect(
      await codeOf(intruder.caller.channels.saveSlackAppCredentials({ appId: created.slackApp.id, clientId: '1111.2222', clientSecret: CLIENT_SECRET, signingSecret: SIGNING_SECRET })),
    ).toBe('NOT_FOUND:not_found');
    expect((await owner.caller.channels.slackApp({ assistantId: owner.assistantId })).slackApp).toMatchObject({ status: 'pending_credentials', credentials: { source: 'none' } });

    // Someone of another account neither.
    const other = await hostedAccount('Slack stranger');
    const stranger = await personWithAssistant(other);
    expect(await codeOf(stranger.caller.channels.slackApp({ assistantId: owner.assistantId }))).toBe('NOT_FOUND:not_found');
    expect(
      await codeOf(stranger.caller.channels.saveSlackAppCredentials({ appId: created.slackApp.id, clientId: '1111.2222', clientSecret: CLIENT_SECRET, signingSecret: SIGNING_SECRET })),
    ).toBe('NOT_FOUND:not_found');
  });

  it('an organization that turned workspace Slack apps off: creating one is FORBIDDEN slack_not_allowed', async () => {
    const acct = await hostedAccount('Slack off');
    const { org, admin, member } = await orgWithPeople(acct);
    const asAdmin = await signedIn(acct, admin.id);
    await asAdmin.organizations.setCapabilities({ orgId: org.id, capabilities: { slackWorkspaceApps: 'off' } });
    const key = await userKey(app(), acct, member.id);
    const hired = await call(app(), `/users/${member.id}/assistants`, { key, body: { name: 'Bea' } });
    const asMember = await signedIn(acct, member.id);
    expect(await codeOf(asMember.channels.createSlackApp({ assistantId: hired.body.assistant.id, botDisplayName: 'Bea' }))).toBe('FORBIDDEN:slack_not_allowed');
    expect(await asMember.channels.slackApp({ assistantId: hired.body.assistant.id })).toEqual({ slackApp: null });
  });
});
