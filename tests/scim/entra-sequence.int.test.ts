import { describe, expect, it } from 'vitest';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { GROUP_URN, PATCH_OP, SCIM_ERROR, USER_URN, filterQuery, scimOrganization, scimPath, tag } from './scim-client';

/**
 * Microsoft Entra ID's provisioning service, request by request, with its default attribute
 * mappings: the connection test, user create (enterprise extension and roles included), lookups,
 * PATCH with capitalised ops, string booleans and `emails[type eq "work"].value`, the userName
 * change it attempts, disable, delete; groups read with excludedAttributes=members, renamed, and
 * members added and removed in Entra's own remove form.
 */
const app = useTestServer();
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const entraUser = (userName: string, externalId: string) => ({
  schemas: [USER_URN, ENTERPRISE],
  externalId,
  userName,
  active: true,
  displayName: 'Test User',
  emails: [{ primary: true, type: 'work', value: userName }],
  meta: { resourceType: 'User' },
  name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
  roles: [],
  [ENTERPRISE]: { employeeNumber: '701984', department: 'Engineering' },
});

describe('Microsoft Entra ID provisioning', () => {
  it('test connection: no token and a wrong token are SCIM 401s with a Bearer challenge; a right one finds no random user', async () => {
    const { scim } = await scimOrganization(app);
    const probe = `/Users?${filterQuery(`userName eq "${crypto.randomUUID()}"`)}`;
    const none = await scim(probe, { token: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+"$/);
    expect(none.body).toMatchObject({ schemas: [SCIM_ERROR], status: '401' });
    const wrong = await scim(probe, { token: 'not-a-scim-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(wrong.body).toMatchObject({ schemas: [SCIM_ERROR], status: '401' });
    const ok = await scim(probe);
    expect(ok.status).toBe(200);
    expect(ok.body.totalResults).toBe(0);
  });

  it('users: create, look up, PATCH the work email (same address applies, another is refused), the userName change is refused, disable, delete', async () => {
    const { scim, domain, acct } = await scimOrganization(app);
    const userName = `Test_User_${tag()}@${domain}`;
    const created = await scim('/Users', { body: entraUser(userName, `ext-${tag()}`) });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(created.body.meta.location);
    const id = created.body.id;
    expect((await scim(scimPath(created.headers.get('location')!))).status).toBe(200);

    const found = await scim(`/Users?${filterQuery(`userName eq "${userName}"`)}`);
    expect(found.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
    expect((await scim(`/Users?${filterQuery('userName eq "non-existent user"')}`)).body).toMatchObject({ totalResults: 0, Resources: [] });

    // "Update User [Multi-valued properties]" with the address the user already has: applied.
    const same = await scim(`/Users/${id}`, {
      method: 'PATCH',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'emails[type eq "work"].value', value: userName.toUpperCase() }, { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' }] },
    });
    expect(same.status).toBe(200);
    expect(same.body.name.familyName).toBe('updatedFamilyName');
    expect(same.body.emails).toEqual([{ value: userName.toLowerCase(), primary: true, type: 'work' }]);

    // With another address: refused as the published mutability says, and the whole request changes nothing.
    const moved = await scim(`/Users/${id}`, {
      method: 'PATCH',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'emails[type eq "work"].value', value: `updatedEmail@${domain}` }, { op: 'Replace', path: 'name.familyName', value: 'other' }] },
    });
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType: 'mutability' });
    expect(moved.body.detail).toMatch(/^emails/);
    const after = await scim(`/Users/${id}`);
    expect(after.body.emails).toEqual([{ value: userName.toLowerCase(), primary: true, type: 'work' }]);
    expect(after.body.name.familyName).toBe('updatedFamilyName');
    expect((await call(app(), `/users/${id}`, { key: acct.key })).body.user.email).toBe(userName.toLowerCase());

    // "Update User [Single-valued properties]": a new userName is refused the same way.
    const renamed = await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'userName', value: `${crypto.randomUUID()}@${domain}` }] } });
    expect(renamed.status).toBe(400);
    expect(renamed.body).toMatchObject({ scimType: 'mutability' });
    expect((await scim(`/Users/${id}`)).body.userName).toBe(userName.toLowerCase());

    const disabled = await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.active).toBe(false);
    expect((await call(app(), `/users/${id}`, { key: acct.key })).body.user.status).toBe('inactive');

    expect((await scim(`/Users/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await scim(`/Users/${id}`)).body).toMatchObject({ schemas: [SCIM_ERROR], status: '404' });
  });

  it('a UPN change is accepted once Steward has the new address as the person’s primary email (docs/scim.md)', async () => {
    const { scim, domain, acct } = await scimOrganization(app);
    const before = `before-${tag()}@${domain}`;
    const id = (await scim('/Users', { body: entraUser(before, `ext-${tag()}`) })).body.id;
    const after = `after-${tag()}@${domain}`;
    const rename = { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'userName', value: after }, { op: 'Replace', path: 'emails[type eq "work"].value', value: after }] };
    expect((await scim(`/Users/${id}`, { method: 'PATCH', body: rename })).status).toBe(400);

    const added = await call(app(), '/identifiers', { key: acct.key, body: { type: 'email', value: after, userId: id, verified: true } });
    expect(added.status).toBe(201);
    expect((await call(app(), `/identifiers/${added.body.identifier.id}/make-primary`, { key: acct.key, method: 'POST' })).status).toBe(200);
    const renamed = await scim(`/Users/${id}`, { method: 'PATCH', body: rename });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, userName: after, emails: [{ value: after, type: 'work', primary: true }] });
    expect((await scim(`/Users?${filterQuery(`userName eq "${after}"`)}`)).body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
  });

  it('a create whose work email is not the userName is refused, and nobody is created', async () => {
    const { scim, domain } = await scimOrganization(app);
    const upn = `upn-${tag()}@${domain}`;
    const body = { ...entraUser(upn, `ext-${tag()}`), emails: [{ primary: true, type: 'work', value: `mail-${tag()}@${domain}` }] };
    const refused = await scim('/Users', { body });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType: 'invalidValue' });
    expect(refused.body.detail).toMatch(/^emails/);
    expect((await scim(`/Users?${filterQuery(`userName eq "${upn}"`)}`)).body.totalResults).toBe(0);
  });

  it('groups: read with excludedAttributes=members, rename, add members, remove exactly the listed ones in Entra’s form', async () => {
    const { scim, domain } = await scimOrganization(app);
    const ids: string[] = [];
    for (const n of ['u1', 'u2', 'u3']) ids.push((await scim('/Users', { body: entraUser(`${n}-${tag()}@${domain}`, `ext-${tag()}`) })).body.id);
    const [u1, u2, u3] = ids;

    const name = `Entra Group ${tag()}`;
    const lookup = `/Groups?excludedAttributes=members&${filterQuery(`displayName eq "${name}"`)}`;
    expect((await scim(lookup)).body.totalResults).toBe(0);
    const created = await scim('/Groups', {
      body: { schemas: [GROUP_URN, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'], externalId: crypto.randomUUID(), displayName: name, members: [], meta: { resourceType: 'Group' } },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(created.body.meta.location);
    const gid = created.body.id;

    const added = await scim(`/Groups/${gid}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: ids.map((value) => ({ $ref: null, value })) }] } });
    expect(added.status).toBe(200);
    expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual([...ids].sort());

    // Entra reads every group without its members.
    const read = await scim(`/Groups/${gid}?excludedAttributes=members`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('members');
    expect(read.body).toMatchObject({ id: gid, displayName: name, schemas: [GROUP_URN] });
    const listed = await scim(lookup);
    expect(listed.body.totalResults).toBe(1);
    expect(listed.body.Resources[0]).not.toHaveProperty('members');
    expect(listed.body.Resources[0].id).toBe(gid);

    const renamed = await scim(`/Groups/${gid}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'displayName', value: `${name} updatedDisplayName` }] } });
    expect(renamed.body.displayName).toBe(`${name} updatedDisplayName`);

    const removed = await scim(`/Groups/${gid}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: u2 }] }] } });
    expect(removed.status).toBe(200);
    expect(removed.body.members.map((m: { value: string }) => m.value).sort()).toEqual([u1, u3].sort());
    expect((await scim(`/Users/${u2}`)).body.groups.map((g: { value: string }) => g.value)).not.toContain(gid);
    expect((await scim(`/Users/${u1}`)).body.groups.map((g: { value: string }) => g.value)).toContain(gid);

    expect((await scim(`/Groups/${gid}`, { method: 'DELETE' })).status).toBe(204);
  });
});
