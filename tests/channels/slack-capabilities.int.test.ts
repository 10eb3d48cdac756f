import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Capability switches at the account and organization tiers (issue 33): an organization admin
 * turns workspace Slack apps off and its people get 403 `slack_not_allowed`; the account can lock
 * a switch, which the organization can then not change (403) and which pins its value for the
 * tiers below; a lock needs a value (400 naming the field); other callers are refused.
 */

const app = useTestServer();

async function orgWithPeople() {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: `Org ${Date.now()}` } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const member = await newUser(app(), acct);
  await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
  return { acct, org, adminKey: await userKey(app(), acct, admin.id), member, memberKey: await userKey(app(), acct, member.id) };
}

const newApp = async (key: string, userId: string, name: string) => {
  const hired = (await call(app(), `/users/${userId}/assistants`, { key, body: { name } })).body.assistant;
  return call(app(), `/assistants/${hired.id}/slack-apps`, { key, body: { kind: 'workspace', botDisplayName: name } });
};

describe('organization and account capability switches', () => {
  it('an organization admin turns workspace Slack apps off: 403 slack_not_allowed for its people; back on, allowed again', async () => {
    const { org, adminKey, member, memberKey } = await orgWithPeople();
    expect((await newApp(memberKey, member.id, 'Before')).status).toBe(201);

    const off = await call(app(), `/organizations/${org.id}/settings/capabilities`, { method: 'PATCH', key: adminKey, body: { capabilities: { slackWorkspaceApps: 'off' } } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({ level: 'organization', ownerId: org.id, capabilities: { slackWorkspaceApps: 'off', slackWorkspaceAppsLocked: false }, effective: { capabilities: { slackWorkspaceApps: 'off', browserAutomation: 'on' } } });
    const refused = await newApp(memberKey, member.id, 'During');
    expect(refused.status).toBe(403);
    expect(refused.body.error_code).toBe('slack_not_allowed');

    // A plain member can read nothing of it and change nothing.
    expect((await call(app(), `/organizations/${org.id}/settings/capabilities`, { key: memberKey })).status).toBe(403);
    expect((await call(app(), `/organizations/${org.id}/settings/capabilities`, { method: 'PATCH', key: memberKey, body: { capabilities: { slackWorkspaceApps: 'on' } } })).status).toBe(403);

    const inherit = await call(app(), `/organizations/${org.id}/settings/capabilities`, { method: 'PATCH', key: adminKey, body: { capabilities: { slackWorkspaceApps: null } } });
    expect(inherit.body.effective.capabilities.slackWorkspaceApps).toBe('on');
    expect((await newApp(memberKey, member.id, 'After')).status).toBe(201);
  });

  it('the account locks a switch: the organization cannot change it, and the lock pins its value below', async () => {
    const { acct, org, adminKey, member, memberKey } = await orgWithPeople();
    await call(app(), `/organizations/${org.id}/settings/capabilities`, { method: 'PATCH', key: adminKey, body: { capabilities: { slackWorkspaceApps: 'off' } } });
    expect((await call(app(), '/settings/capabilities', { method: 'PATCH', key: acct.key, body: { capabilities: { slackWorkspaceAppsLocked: true } } })).body).toMatchObject({
      status: 400,
      fields: [{ field: 'capabilities.slackWorkspaceAppsLocked' }],
    });
    const locked = await call(app(), '/settings/capabilities', { method: 'PATCH', key: acct.key, body: { capabilities: { slackWorkspaceApps: 'on', slackWorkspaceAppsLocked: true, workspaceCli: 'off' } } });
    expect(locked.body).toMatchObject({ level: 'account', capabilities: { slackWorkspaceApps: 'on', slackWorkspaceAppsLocked: true, workspaceCli: 'off' } });
    const seen = await call(app(), `/organizations/${org.id}/settings/capabilities`, { key: adminKey });
    expect(seen.body).toMatchObject({ lockedAbove: { slackWorkspaceApps: { value: 'on', by: 'account' } }, effective: { capabilities: { slackWorkspaceApps: 'on', workspaceCli: 'off' } } });
    const blocked = await call(app(), `/organizations/${org.id}/settings/capabilities`, { method: 'PATCH', key: adminKey, body: { capabilities: { slackWorkspaceApps: 'off' } } });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error).toContain('capabilities.slackWorkspaceApps');
    // The organization's own `off` no longer counts: the account's lock pins `on`.
    expect((await newApp(memberKey, member.id, 'Pinned')).status).toBe(201);
    // The team tier resolves the account's switches through the same rule.
    const team = await call(app(), `/teams/${member.teamId}/settings/resource-permissions`, { key: acct.key });
    expect(team.body.effective.capabilities.workspaceCli).toBe('off');
  });

  it('who may call: the account tier needs an account-wide key; another account’s organization is 404; bad input names the field', async () => {
    const { acct, org, adminKey } = await orgWithPeople();
    expect((await call(app(), '/settings/capabilities', { key: adminKey })).status).toBe(403);
    expect((await call(app(), '/settings/capabilities', { key: acct.key })).body).toMatchObject({ ok: true, level: 'account', ownerId: acct.accountId });
    const stranger = await newAccount(app(), 'Other');
    expect((await call(app(), `/organizations/${org.id}/settings/capabilities`, { key: stranger.key })).status).toBe(404);
    const bad = await call(app(), '/settings/capabilities', { method: 'PATCH', key: acct.key, body: { capabilities: { slackWorkspaceApps: 'maybe', nonsense: true } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('slackWorkspaceApps');
  });
});
