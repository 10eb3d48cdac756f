import { describe, expect, it } from 'vitest';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { GROUP_URN, PATCH_OP, SCIM_ERROR, USER_URN, filterQuery, scimOrganization, scimPath, tag } from './scim-client';

/**
 * Okta's SCIM 2.0 provisioning, request by request: its connection test and spec test (list,
 * lookups by userName with the case changed, create, duplicate, unknown id), then the lifecycle
 * of a provisioned user (profile PUT, deactivate and reactivate by path-less PATCH) and group
 * push (create with members, rename by path-less replace carrying the id, add and remove by
 * filter, look up by displayName, delete). Bodies are those Okta sends.
 */
const app = useTestServer();

describe('Okta SCIM 2.0 provisioning', () => {
  it('connection and spec test: a wrong token is a SCIM 401 with a Bearer challenge; lookups by userName ignore case; create answers a Location', async () => {
    const { scim, domain, acct } = await scimOrganization(app);

    // "Test API Credentials" with a token that is not the organization's.
    const refused = await scim('/Users?startIndex=1&count=1', { token: `scim_${'a'.repeat(64)}` });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+", error="invalid_token"$/);
    expect(refused.headers.get('content-type')).toContain('application/scim+json');
    expect(refused.body).toEqual({ schemas: [SCIM_ERROR], status: '401', detail: expect.any(String) });

    const first = await scim('/Users?count=1&startIndex=1');
    expect(first.status).toBe(200);
    // The organization's admin is its one user so far.
    expect(first.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 1, startIndex: 1, itemsPerPage: 1 });
    expect(first.body.Resources).toHaveLength(1);

    // Okta's generated test user: mixed case in userName and email alike.
    const random = tag();
    const userName = `Runscope${random}Tester@${domain}`;
    const caps = userName.toUpperCase();
    expect((await scim(`/Users?${filterQuery(`userName eq "${userName}"`)}`)).body.totalResults).toBe(0);
    expect((await scim(`/Users/${crypto.randomUUID()}`)).body).toMatchObject({ schemas: [SCIM_ERROR], status: '404' });

    const created = await scim('/Users', {
      body: {
        schemas: [USER_URN],
        userName,
        name: { givenName: 'Runscope', familyName: 'Tester' },
        emails: [{ primary: true, value: userName, type: 'work' }],
        displayName: 'Runscope Tester',
        active: true,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ userName: userName.toLowerCase(), active: true, name: { givenName: 'Runscope', familyName: 'Tester' } });
    // RFC 7644 §3.3: the new resource's URI, in the Location header and as meta.location.
    const location = created.headers.get('location');
    expect(location).toBe(created.body.meta.location);
    expect(new URL(location!).pathname).toBe(`/api/scim/v2/Users/${created.body.id}`);
    expect((await scim(scimPath(location!))).body.id).toBe(created.body.id);

    // Okta's "Username Case Sensitivity Check": the same userName in capitals finds the user...
    const byCaps = await scim(`/Users?${filterQuery(`userName eq "${caps}"`)}&startIndex=1&count=100`);
    expect(byCaps.status).toBe(200);
    expect(byCaps.body.totalResults).toBe(1);
    expect(byCaps.body.Resources[0].id).toBe(created.body.id);
    // ...as does the mixed case Okta stores, so it never tries to create a duplicate.
    expect((await scim(`/Users?${filterQuery(`userName eq "${userName}"`)}`)).body.Resources.map((r: { id: string }) => r.id)).toEqual([created.body.id]);

    const again = await scim('/Users', { body: { schemas: [USER_URN], userName, name: { givenName: 'Runscope', familyName: 'Tester' }, emails: [{ primary: true, value: userName, type: 'work' }], active: true } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ schemas: [SCIM_ERROR], status: '409', scimType: 'uniqueness' });
    expect((await call(app(), `/users/${created.body.id}`, { key: acct.key })).body.user.email).toBe(userName.toLowerCase());
  });

  it('user lifecycle: profile PUT with Okta’s extra attributes, deactivate and reactivate by path-less PATCH', async () => {
    const { scim, domain, acct } = await scimOrganization(app);
    const login = `ada.lovelace@${domain}`;
    const created = await scim('/Users', {
      body: { schemas: [USER_URN], userName: login, name: { givenName: 'Ada', familyName: 'Lovelace' }, emails: [{ primary: true, value: login, type: 'work' }], displayName: 'Ada Lovelace', locale: 'en-US', externalId: '00u1ab2cd3EF4gh5i6j7', groups: [], active: true },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;

    // A profile change: Okta PUTs the whole user, read-only groups and unknown locale included.
    const put = await scim(`/Users/${id}`, {
      method: 'PUT',
      body: { schemas: [USER_URN], id, userName: login, name: { givenName: 'Ada', familyName: 'King' }, emails: [{ primary: true, value: login, type: 'work' }], displayName: 'Ada King', locale: 'en-US', externalId: '00u1ab2cd3EF4gh5i6j7', groups: [], active: true },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, userName: login, displayName: 'Ada King', name: { familyName: 'King' }, externalId: '00u1ab2cd3EF4gh5i6j7' });

    const off = await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] } });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await call(app(), `/users/${id}`, { key: acct.key })).body.user.status).toBe('inactive');
    const on = await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] } });
    expect(on.body.active).toBe(true);
    expect((await call(app(), `/users/${id}`, { key: acct.key })).body.user.status).toBe('active');
  });

  it('group push: create with members, rename with the id in the value, add, remove by filter, look up by displayName in another case, delete', async () => {
    const { scim, domain } = await scimOrganization(app);
    const person = async (n: string) => (await scim('/Users', { body: { schemas: [USER_URN], userName: `${n}@${domain}`, name: { givenName: n, familyName: 'X' }, emails: [{ primary: true, value: `${n}@${domain}`, type: 'work' }], active: true } })).body.id as string;
    const [a, b, c] = [await person('amy'), await person('bob'), await person('cy')];

    expect((await scim(`/Groups?${filterQuery('displayName eq "Okta Engineers"')}&startIndex=1&count=100`)).body.totalResults).toBe(0);
    const group = await scim('/Groups', { body: { schemas: [GROUP_URN], displayName: 'Okta Engineers', members: [{ value: a, display: `amy@${domain}` }, { value: b, display: `bob@${domain}` }] } });
    expect(group.status).toBe(201);
    expect(group.headers.get('location')).toBe(group.body.meta.location);
    const gid = group.body.id;

    const renamed = await scim(`/Groups/${gid}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id: gid, displayName: 'Okta Builders' } }] } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.displayName).toBe('Okta Builders');

    const added = await scim(`/Groups/${gid}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: c, display: `cy@${domain}` }] }] } });
    expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual([a, b, c].sort());
    const removed = await scim(`/Groups/${gid}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${a}"]` }] } });
    expect(removed.body.members.map((m: { value: string }) => m.value).sort()).toEqual([b, c].sort());

    const found = await scim(`/Groups?${filterQuery('displayName eq "okta builders"')}&startIndex=1&count=100`);
    expect(found.body.Resources.map((g: { id: string }) => g.id)).toEqual([gid]);

    expect((await scim(`/Groups/${gid}`, { method: 'DELETE' })).status).toBe(204);
    expect((await scim(`/Groups/${gid}`)).body).toMatchObject({ schemas: [SCIM_ERROR], status: '404' });
  });
});
