import { describe, expect, it } from 'vitest';
import { ListMembersResponse, ModelTiersResponse, OrganizationEnvelope } from '@/server/organizations/contracts';
import { call, newAccount, newUser, uniqueEmail } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function withOrg() {
  const acct = await newAccount(app());
  const created = await call(app(), '/organizations', { key: acct.key, body: { name: 'Acme' } });
  const org = OrganizationEnvelope.parse(created.body).organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  return { acct, org, admin };
}

describe('organizations', () => {
  it('CRUD with the account key; 400 without name; a user sees only their own organization', async () => {
    const { acct, org, admin } = await withOrg();
    expect(org).toMatchObject({ name: 'Acme', memberCount: 0, defaultTeam: null, generalInfo: '' });
    expect((await call(app(), '/organizations', { key: acct.key, body: {} })).status).toBe(400);
    const other = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Beta' } })).body.organization;
    expect((await call(app(), '/organizations', { key: acct.key })).body.organizations.map((o: { name: string }) => o.name)).toEqual(['Beta', 'Acme']);
    expect((await call(app(), '/organizations', { key: acct.key, as: admin.email })).body.organizations.map((o: { id: string }) => o.id)).toEqual([org.id]);
    expect((await call(app(), `/organizations/${other.id}`, { key: acct.key, as: admin.email })).status).toBe(403);
    const got = await call(app(), `/organizations/${org.id}`, { key: acct.key, as: admin.email });
    expect(got.body.organization.memberCount).toBe(1);
    const put = await call(app(), `/organizations/${org.id}`, { key: acct.key, as: admin.email, method: 'PUT', body: { generalInfo: 'We sell anvils', defaultTeam: admin.teamId } });
    expect(put.status).toBe(400); // the admin's own team is not an organization team
    const team = await call(app(), '/users/provision', { key: acct.key, body: { email: uniqueEmail() } });
    expect((await call(app(), `/organizations/${org.id}`, { key: acct.key, method: 'PUT', body: { defaultTeam: team.body.teamId } })).status).toBe(400);
    const ok = await call(app(), `/organizations/${org.id}`, { key: acct.key, as: admin.email, method: 'PUT', body: { generalInfo: 'We sell anvils' } });
    expect(ok.body.organization.generalInfo).toBe('We sell anvils');
    const del = await call(app(), `/organizations/${other.id}`, { key: acct.key, method: 'DELETE' });
    expect(del.body).toEqual({ ok: true, organization: { id: other.id, deleted: true, message: expect.any(String) } });
    expect((await call(app(), `/organizations/${other.id}`, { key: acct.key })).status).toBe(404);
    const stranger = await newAccount(app());
    expect((await call(app(), `/organizations/${org.id}`, { key: stranger.key })).status).toBe(404);
  });

  it('a member is not an admin: 403 on changes; more than 10 created in a minute is 429', async () => {
    const { acct, org } = await withOrg();
    const member = await newUser(app(), acct);
    await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
    expect((await call(app(), `/organizations/${org.id}`, { key: acct.key, as: member.email, method: 'PUT', body: { name: 'x' } })).status).toBe(403);
    expect((await call(app(), '/organizations', { key: acct.key, as: member.email, body: { name: 'Mine' } })).status).toBe(403);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await call(app(), '/organizations', { key: acct.key, body: { name: `Org ${i}` } })).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(9); // one was created by withOrg
    const limited = statuses.at(-1) === 429 ? statuses.at(-1) : (await call(app(), '/organizations', { key: acct.key, body: { name: 'one more' } })).status;
    expect(limited).toBe(429);
  });

  it('members: add creates the user and places them on the default team; remove refuses the only admin', async () => {
    const { acct, org, admin } = await withOrg();
    const team = (await call(app(), '/users/provision', { key: acct.key, body: { email: uniqueEmail('lead') } })).body;
    await call(app(), `/users/${team.user.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
    const teamRow = await app().database.pool.query(`UPDATE teams SET organization_id = $1 WHERE id = $2 RETURNING id`, [org.id, team.teamId]);
    await call(app(), `/organizations/${org.id}`, { key: acct.key, method: 'PUT', body: { defaultTeam: teamRow.rows[0].id } });
    // The admin adds people directly only at the organization's verified domains (anyone else is invited).
    const domain = (await call(app(), `/organizations/${org.id}/domains`, { key: acct.key, body: { domain: `acme-${Date.now().toString(36)}.example` } })).body.domain;
    await app().database.pool.query(`UPDATE organization_domains SET verified = true, verified_at = now() WHERE id = $1`, [domain.id]);
    const email = uniqueEmail('new').replace('@example.com', `@${domain.domain}`);
    const added = await call(app(), `/organizations/${org.id}/members`, { key: acct.key, as: admin.email, body: { email } });
    expect(added.status).toBe(201);
    expect(added.body.member).toMatchObject({ email, organizationRole: 'member', status: 'active' });
    const user = (await call(app(), `/users/${added.body.member.id}`, { key: acct.key })).body.user;
    expect(user).toMatchObject({ organization: org.id, team: { id: team.teamId } });
    const members = ListMembersResponse.parse((await call(app(), `/organizations/${org.id}/members`, { key: acct.key, as: admin.email })).body);
    expect(members.members.map((m) => m.email)).toEqual([email, team.user.email, admin.email]);
    expect((await call(app(), `/organizations/${org.id}/members?search=${email.slice(0, 10)}`, { key: acct.key })).body.total).toBe(1);

    const outsiderOrg = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Elsewhere' } })).body.organization;
    const busy = await newUser(app(), acct);
    await call(app(), `/users/${busy.id}`, { key: acct.key, method: 'PUT', body: { organization: outsiderOrg.id } });
    expect((await call(app(), `/organizations/${org.id}/members`, { key: acct.key, body: { email: busy.email } })).status).toBe(403);

    const onlyAdmin = await call(app(), `/organizations/${org.id}/members/${admin.id}`, { key: acct.key, method: 'DELETE' });
    expect(onlyAdmin.status).toBe(409);
    expect(onlyAdmin.body).toMatchObject({ requiresOrgAdminTransfer: true, organizationId: org.id });
    const removed = await call(app(), `/organizations/${org.id}/members/${added.body.member.id}`, { key: acct.key, method: 'DELETE' });
    expect(removed.body.member).toMatchObject({ id: added.body.member.id, deleted: true });
    const after = (await call(app(), `/users/${added.body.member.id}`, { key: acct.key })).body.user;
    expect(after.organization).toBeNull();
    expect(after.team.id).not.toBe(team.teamId);
    expect((await call(app(), `/organizations/${org.id}/members/${added.body.member.id}`, { key: acct.key, method: 'DELETE' })).status).toBe(404);
  });

  it('model tiers: GET and PATCH, null inherits, a tier outside the four is 400', async () => {
    const { acct, org, admin } = await withOrg();
    const url = `/organizations/${org.id}/settings/model-tiers`;
    expect(ModelTiersResponse.parse((await call(app(), url, { key: acct.key })).body)).toEqual({
      ok: true,
      modelTiers: { chat: null, task: null },
      effective: { chat: 'medium', task: 'medium' },
    });
    const set = await call(app(), url, { key: acct.key, as: admin.email, method: 'PATCH', body: { chat: 'high' } });
    expect(set.body).toMatchObject({ modelTiers: { chat: 'high', task: null }, effective: { chat: 'high', task: 'medium' } });
    const bad = await call(app(), url, { key: acct.key, method: 'PATCH', body: { task: 'extreme' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('low, medium, high, ultra');
    expect((await call(app(), url, { key: acct.key, method: 'PATCH', body: { chat: null } })).body.modelTiers.chat).toBeNull();
  });
});
