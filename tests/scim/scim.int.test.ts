import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const SCIM = { 'Content-Type': 'application/scim+json' };

async function scimOrg() {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Scim Co' } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const minted = await call(app(), `/organizations/${org.id}/scim/token`, { key: acct.key, as: admin.email, method: 'POST' });
  // SCIM creates people only at the organization's verified domains (DNS verification itself is covered in the domain tests).
  for (const domain of ['okta.example', 'entra.example', 'grp.example']) {
    const added = await call(app(), `/organizations/${org.id}/domains`, { key: acct.key, body: { domain } });
    await app().database.pool.query(`UPDATE organization_domains SET verified = true, verified_at = now() WHERE id = $1`, [added.body.domain.id]);
  }
  return { acct, org, admin, token: minted.body.token as string, minted: minted.body };
}
const scim = (token: string, path: string, opts: { method?: string; body?: unknown } = {}) =>
  call(app(), `/scim/v2${path}`, { key: token, method: opts.method ?? (opts.body ? 'POST' : 'GET'), rawBody: opts.body ? JSON.stringify(opts.body) : undefined, headers: SCIM });

describe('SCIM 2.0', () => {
  it('mints a token shown once (hash stored), turns SCIM on, and rotation invalidates the old token', async () => {
    const { acct, org, admin, token, minted } = await scimOrg();
    expect(token).toMatch(/^scim_[0-9a-f]{64}$/);
    expect(minted.endpoint).toContain('/api/scim/v2');
    const seen = (await call(app(), `/organizations/${org.id}`, { key: acct.key })).body.organization;
    expect(seen.scim).toMatchObject({ enabled: true, hasToken: true, version: '2.0' });
    expect(JSON.stringify(seen)).not.toContain(token);
    expect((await scim(token, '/Users')).status).toBe(200);
    const rotated = await call(app(), `/organizations/${org.id}/scim/token`, { key: acct.key, as: admin.email, method: 'POST' });
    expect((await scim(token, '/Users')).status).toBe(401);
    expect((await scim(rotated.body.token, '/Users')).status).toBe(200);
    const unauth = await scim('scim_' + '0'.repeat(64), '/Users');
    expect(unauth.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
    await call(app(), `/organizations/${org.id}/sso`, { key: acct.key, method: 'DELETE' });
    expect((await scim(rotated.body.token, '/Users')).status).toBe(401);
  });

  it('replays Okta: create, get by filter userName eq, PATCH active false blocks the user, PATCH active true restores', async () => {
    const { acct, token } = await scimOrg();
    const created = await scim(token, '/Users', {
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'Jane.Doe@okta.example', name: { givenName: 'Jane', familyName: 'Doe' }, emails: [{ primary: true, value: 'jane.doe@okta.example', type: 'work' }], displayName: 'Jane Doe', active: true, externalId: 'okta-1' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toContain('application/scim+json');
    expect(created.body).toMatchObject({ userName: 'jane.doe@okta.example', active: true, externalId: 'okta-1', name: { givenName: 'Jane', familyName: 'Doe' } });
    const id = created.body.id;
    const found = await scim(token, `/Users?filter=${encodeURIComponent('userName eq "jane.doe@okta.example"')}&startIndex=1&count=100`);
    expect(found.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 1, Resources: [{ id }] });
    expect((await scim(token, `/Users?filter=${encodeURIComponent('userName eq "nobody@okta.example"')}`)).body.totalResults).toBe(0);
    expect((await scim(token, '/Users', { body: { userName: 'jane.doe@okta.example' } })).status).toBe(409);

    const off = await scim(token, `/Users/${id}`, { method: 'PATCH', body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] } });
    expect(off.body.active).toBe(false);
    const blocked = await call(app(), '/me', { key: acct.key, as: 'jane.doe@okta.example' });
    expect(blocked.body.error_code).toBe('account_blocked');
    await scim(token, `/Users/${id}`, { method: 'PATCH', body: { Operations: [{ op: 'replace', path: 'active', value: true }] } });
    expect((await call(app(), `/users/${id}`, { key: acct.key })).body.user.status).toBe('active');
  });

  it('replays Entra: capitalised ops and string booleans; PUT replaces; DELETE deprovisions', async () => {
    const { acct, token } = await scimOrg();
    const created = await scim(token, '/Users', { body: { userName: 'sam@entra.example', active: 'True', name: { givenName: 'Sam', familyName: 'Lee' }, externalId: 'e-1' } });
    const id = created.body.id;
    const patched = await scim(token, `/Users/${id}`, {
      method: 'PATCH',
      body: { Operations: [{ op: 'Replace', path: 'active', value: 'False' }, { op: 'Add', path: 'name.familyName', value: 'Li' }] },
    });
    expect(patched.body).toMatchObject({ active: false, name: { familyName: 'Li' } });
    const replaced = await scim(token, `/Users/${id}`, { method: 'PUT', body: { userName: 'sam@entra.example', active: true, name: { givenName: 'Samuel', familyName: 'Li' } } });
    expect(replaced.body).toMatchObject({ active: true, name: { givenName: 'Samuel' } });
    expect((await scim(token, `/Users/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await scim(token, `/Users/${id}`)).status).toBe(404);
    expect((await call(app(), `/users/${id}`, { key: acct.key })).status).toBe(404);
  });

  it('groups map to teams; members from POST, PUT and PATCH are recorded; another organization sees nothing', async () => {
    const { token } = await scimOrg();
    const u1 = (await scim(token, '/Users', { body: { userName: 'a@grp.example' } })).body.id;
    const u2 = (await scim(token, '/Users', { body: { userName: 'b@grp.example' } })).body.id;
    const u3 = (await scim(token, '/Users', { body: { userName: 'c@grp.example' } })).body.id;
    const group = await scim(token, '/Groups', { body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Engineering', members: [{ value: u1 }, { value: u2 }] } });
    expect(group.status).toBe(201);
    expect(group.body.members.map((m: { value: string }) => m.value).sort()).toEqual([u1, u2].sort());
    const gid = group.body.id;
    const pushed = await scim(token, `/Groups/${gid}`, { method: 'PATCH', body: { Operations: [{ op: 'add', path: 'members', value: [{ value: u3 }] }, { op: 'remove', path: `members[value eq "${u1}"]` }] } });
    expect(pushed.body.members.map((m: { value: string }) => m.value).sort()).toEqual([u2, u3].sort());
    const user3 = await scim(token, `/Users/${u3}`);
    expect(user3.body.groups).toEqual([{ value: gid, display: 'Engineering' }]);
    const put = await scim(token, `/Groups/${gid}`, { method: 'PUT', body: { displayName: 'Eng', members: [{ value: u1 }] } });
    expect(put.body).toMatchObject({ displayName: 'Eng', members: [{ value: u1 }] });
    expect((await scim(token, `/Groups?filter=${encodeURIComponent('displayName eq "Eng"')}`)).body.totalResults).toBe(1);
    const other = await scimOrg();
    expect((await scim(other.token, `/Groups/${gid}`)).status).toBe(404);
    expect((await scim(other.token, `/Users/${u1}`)).status).toBe(404);
    expect((await scim(token, `/Groups/${gid}`, { method: 'DELETE' })).status).toBe(204);
    expect((await scim(token, `/Groups/${gid}`)).status).toBe(404);
  });

  it('serves the discovery documents', async () => {
    const spc = await call(app(), '/scim/v2/ServiceProviderConfig');
    expect(spc.body).toMatchObject({ patch: { supported: true }, filter: { supported: true } });
    expect((await call(app(), '/scim/v2/ResourceTypes')).body.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
    expect((await call(app(), '/scim/v2/Schemas')).body.totalResults).toBe(3); // User, Group and the enterprise User extension
  });
});
