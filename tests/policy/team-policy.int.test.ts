import { describe, expect, it } from 'vitest';
import { PolicyResponse } from '@/server/policy/contracts';
import { policyChain, resolveApprovalMode, resolveCapabilities } from '@/server/policy/resolve';
import { writePolicy } from '@/server/policy/team-policy';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function teamInOrg() {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Org' } })).body.organization;
  const lead = await newUser(app(), acct);
  await call(app(), `/users/${lead.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const team = (await call(app(), '/teams', { key: acct.key, as: lead.email, body: { name: 'Ops' } })).body.team;
  const member = await newUser(app(), acct);
  await call(app(), `/teams/${team.id}/members`, { key: acct.key, body: { userId: member.id } });
  return { acct, org, lead, member, team, url: `/teams/${team.id}/settings/resource-permissions` };
}

describe('team policy', () => {
  it('GET needs an account key or a team admin; defaults are all on', async () => {
    const { acct, lead, member, url } = await teamInOrg();
    const got = PolicyResponse.parse((await call(app(), url, { key: acct.key })).body);
    expect(got.settings.capabilities).toMatchObject({ workspaceCli: null, workspaceCliLocked: false });
    expect(got.effective.capabilities).toEqual({ workspaceCli: 'on', browserAutomation: 'on', workspaceHandoff: 'on', mcpServers: 'on' });
    expect((await call(app(), url, { key: acct.key, as: lead.email })).status).toBe(200);
    expect((await call(app(), url, { key: acct.key, as: member.email })).status).toBe(403);
  });

  it('PATCH sets switches and locks; a lock without a value is 400; handoff domains are bare origins', async () => {
    const { acct, url } = await teamInOrg();
    const noValue = await call(app(), url, { key: acct.key, method: 'PATCH', body: { capabilities: { workspaceCliLocked: true } } });
    expect(noValue.status).toBe(400);
    expect(noValue.body.error).toContain('workspaceCli');
    const res = await call(app(), url, {
      key: acct.key,
      method: 'PATCH',
      body: { capabilities: { workspaceCli: 'off', workspaceCliLocked: true, workspaceHandoffDomains: { allowlist: ['Example.org'], blocklist: ['bad.example'] } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.settings.capabilities).toMatchObject({ workspaceCli: 'off', workspaceCliLocked: true, workspaceHandoffDomains: { allowlist: ['example.org'], blocklist: ['bad.example'] } });
    expect(res.body.effective.capabilities.workspaceCli).toBe('off');
    const url2 = await call(app(), url, { key: acct.key, method: 'PATCH', body: { capabilities: { workspaceHandoffDomains: { allowlist: ['https://example.org/x'] } } } });
    expect(url2.status).toBe(400);
    expect((await call(app(), url, { key: acct.key, method: 'PATCH', body: { capabilities: { workspaceCli: 'maybe' } } })).status).toBe(400);
  });

  it('organization locks pin switches and approval cells; the team sees the locked action types', async () => {
    const { acct, org, team, lead, url } = await teamInOrg();
    await writePolicy(app().database.db, 'organization', org.id, acct.accountId, {
      capabilities: { browserAutomation: 'off', browserAutomationLocked: true },
      matrix: { email_as_user: { mode: 'manual', timeBoxedWindowMin: null, locked: true } },
    });
    expect((await call(app(), url, { key: acct.key, as: lead.email, method: 'PATCH', body: { capabilities: { browserAutomation: 'on' } } })).status).toBe(403);
    expect((await call(app(), url, { key: acct.key, method: 'PATCH', body: { approvalSettings: { matrix: { email_as_user: { mode: 'auto' } } } } })).status).toBe(403);
    const ok = await call(app(), url, { key: acct.key, method: 'PATCH', body: { approvalSettings: { matrix: { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 30 } } } } });
    expect(ok.status).toBe(200);
    expect(ok.body.settings.approvalSettings).toEqual({
      matrix: { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 30 } },
      organizationLocked: { email_as_user: { mode: 'manual', timeBoxedWindowMin: null } },
    });
    expect((await call(app(), url, { key: acct.key, method: 'PATCH', body: { approvalSettings: { matrix: { files: { mode: 'time-boxed' } } } } })).status).toBe(400);
    expect(ok.body.effective.capabilities.browserAutomation).toBe('off');
    const chain = await policyChain(app().database.db, { accountId: acct.accountId, organizationId: org.id, teamId: team.id });
    expect(resolveApprovalMode(chain, 'email_as_user').mode).toBe('manual');
    expect(resolveApprovalMode(chain, 'calendar')).toEqual({ mode: 'time-boxed', timeBoxedWindowMin: 30 });
  });

  it('resolution: an off anywhere wins, locks pin, allowlists intersect and blocklists add up', async () => {
    const { acct, org, team } = await teamInOrg();
    const db = app().database.db;
    await writePolicy(db, 'account', acct.accountId, acct.accountId, { capabilities: { workspaceHandoff: 'on', workspaceHandoffLocked: true, workspaceHandoffDomains: { allowlist: ['a.org', 'b.org'], blocklist: ['x.org'] } } });
    await writePolicy(db, 'organization', org.id, acct.accountId, { capabilities: { workspaceCli: 'off', workspaceHandoffDomains: { allowlist: ['b.org', 'c.org'], blocklist: ['y.org'] } } });
    await writePolicy(db, 'team', team.id, acct.accountId, { capabilities: { workspaceCli: 'on', workspaceHandoff: 'off' } });
    const r = resolveCapabilities(await policyChain(db, { accountId: acct.accountId, organizationId: org.id, teamId: team.id }));
    expect(r.capabilities).toEqual({ workspaceCli: 'off', browserAutomation: 'on', workspaceHandoff: 'on', mcpServers: 'on' });
    expect(r.workspaceHandoffDomains).toEqual({ allowlist: ['b.org'], blocklist: ['x.org', 'y.org'] });
  });

  it('the restricted preset turns off and locks MCP, shell, browser automation and handoff; a manual edit clears the label', async () => {
    const { acct, url, team } = await teamInOrg();
    const preset = await call(app(), `/teams/${team.id}/settings/security-preset`, { key: acct.key, body: { preset: 'restricted' } });
    expect(preset.status).toBe(200);
    expect(preset.body.preset).toBe('restricted');
    expect(preset.body.settings.capabilities).toMatchObject({ mcpServers: 'off', mcpServersLocked: true, workspaceCli: 'off', workspaceCliLocked: true, browserAutomation: 'off', workspaceHandoff: 'off' });
    expect((await call(app(), `/teams/${team.id}/settings/security-preset`, { key: acct.key, body: { preset: 'open' } })).status).toBe(400);
    const edited = await call(app(), url, { key: acct.key, method: 'PATCH', body: { capabilities: { workspaceCli: 'on', workspaceCliLocked: false } } });
    expect(edited.body.preset).toBeNull();
    expect(edited.body.settings.capabilities.mcpServers).toBe('off');
  });
});
