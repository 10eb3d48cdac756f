import { describe, expect, it } from 'vitest';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { GROUP_URN, PATCH_OP, SCIM_ERROR, USER_URN, filterQuery, scimOrganization, scimPath, tag } from './scim-client';

/**
 * What a strict SCIM client relies on beyond the IdP sequences: every discovery document served
 * at its meta.location, what /Schemas publishes being what the server does (caseExact in filters,
 * mutability in PATCH), attributes / excludedAttributes on every read, paging and query errors in
 * SCIM's error format.
 */
const app = useTestServer();
type Attr = { name: string; type: string; caseExact: boolean; mutability: string; subAttributes?: Attr[] };

const ids = (list: { body: { Resources: Array<{ id: string }> } }) => list.body.Resources.map((r) => r.id);

describe('discovery documents', () => {
  it('serves each resource type and schema at its meta.location, in SCIM’s shape; an unknown one is a SCIM 404', async () => {
    const types = await call(app(), '/scim/v2/ResourceTypes');
    const schemas = await call(app(), '/scim/v2/Schemas');
    const documents = [...types.body.Resources, ...schemas.body.Resources];
    // User and Group, their schemas, and the enterprise User extension's schema.
    expect(documents).toHaveLength(5);
    for (const doc of documents) {
      const res = await call(app(), `/scim/v2${scimPath(doc.meta.location)}`);
      expect(res.status, doc.meta.location).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/scim+json');
      expect(res.body).toEqual(doc);
    }
    const user = await call(app(), `/scim/v2/ResourceTypes/User`);
    expect(user.body).toMatchObject({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], id: 'User', endpoint: '/Users', schema: USER_URN });
    const group = await call(app(), `/scim/v2/Schemas/${GROUP_URN}`);
    expect(group.body).toMatchObject({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], id: GROUP_URN, name: 'Group' });
    for (const path of ['/ResourceTypes/Device', `/Schemas/urn:ietf:params:scim:schemas:extension:other:2.0:User`]) {
      const missing = await call(app(), `/scim/v2${path}`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toContain('application/scim+json');
      expect(missing.body).toMatchObject({ schemas: [SCIM_ERROR], status: '404' });
    }
  });

  it('publishes userName and emails as immutable, groups as readOnly, and which strings compare exactly', async () => {
    const user = (await call(app(), `/scim/v2/Schemas/${USER_URN}`)).body;
    const attr = (name: string) => user.attributes.find((a: Attr) => a.name === name);
    expect(attr('userName')).toMatchObject({ mutability: 'immutable', caseExact: false, uniqueness: 'server', required: true });
    expect(attr('emails')).toMatchObject({ mutability: 'immutable', multiValued: true });
    expect(attr('emails').subAttributes.find((a: Attr) => a.name === 'value')).toMatchObject({ mutability: 'immutable', caseExact: false });
    expect(attr('groups')).toMatchObject({ mutability: 'readOnly' });
    expect(attr('externalId')).toMatchObject({ mutability: 'readWrite', caseExact: true });
    expect(attr('displayName')).toMatchObject({ mutability: 'readWrite', caseExact: false });
  });
});

describe('what /Schemas says is what the server does', () => {
  it('every published string attribute of a user filters case-insensitively exactly when caseExact is false', async () => {
    const { scim, domain } = await scimOrganization(app);
    const userName = `mixed.${tag()}@${domain}`;
    const externalId = `Ext-${tag()}`;
    const created = await scim('/Users', { body: { schemas: [USER_URN], userName, externalId, displayName: 'Grace Hopper', name: { givenName: 'Grace', familyName: 'Hopper', formatted: 'Grace Hopper' }, active: true } });
    expect(created.status).toBe(201);
    const shown = created.body;
    const published: Attr[] = (await call(app(), `/scim/v2/Schemas/${USER_URN}`)).body.attributes;
    const checked: string[] = [];
    for (const a of published) {
      const leaves = a.type === 'complex' ? (a.subAttributes ?? []).filter((s) => s.type === 'string').map((s) => ({ path: `${a.name}.${s.name}`, caseExact: s.caseExact })) : a.type === 'string' ? [{ path: a.name, caseExact: a.caseExact }] : [];
      for (const { path, caseExact } of leaves) {
        const [top, sub] = path.split('.');
        const raw = sub ? [shown[top]].flat()[0]?.[sub] : shown[top];
        if (typeof raw !== 'string' || raw.toUpperCase() === raw.toLowerCase()) continue;
        const swapped = raw === raw.toUpperCase() ? raw.toLowerCase() : raw.toUpperCase();
        const hits = await scim(`/Users?${filterQuery(`${path} eq "${swapped}"`)}`);
        expect(hits.status, path).toBe(200);
        expect(ids(hits).includes(shown.id), `${path} eq "${swapped}" (caseExact ${caseExact})`).toBe(!caseExact);
        expect(ids(await scim(`/Users?${filterQuery(`${path} eq "${raw}"`)}`)), path).toContain(shown.id);
        checked.push(path);
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['userName', 'externalId', 'displayName', 'emails.value', 'name.givenName']));
  });

  it('every published immutable or readOnly user attribute refuses a PATCH that changes it (400 mutability), and accepts its current value', async () => {
    const { scim, domain } = await scimOrganization(app);
    const userName = `fixed.${tag()}@${domain}`;
    const id = (await scim('/Users', { body: { schemas: [USER_URN], userName, name: { givenName: 'Fixed' } } })).body.id;
    const group = (await scim('/Groups', { body: { schemas: [GROUP_URN], displayName: 'Fixed', members: [{ value: id }] } })).body;
    const current = (await scim(`/Users/${id}`)).body;
    const published: Attr[] = (await call(app(), `/scim/v2/Schemas/${USER_URN}`)).body.attributes;
    const changes: Record<string, { other: unknown; same: unknown }> = {
      userName: { other: `other.${tag()}@${domain}`, same: userName.toUpperCase() },
      emails: { other: [{ value: `other.${tag()}@${domain}`, type: 'work', primary: true }], same: [{ value: userName, type: 'work', primary: true }] },
      groups: { other: [], same: current.groups },
    };
    const fixed = published.filter((a) => a.mutability === 'immutable' || a.mutability === 'readOnly');
    expect(fixed.map((a) => a.name).sort()).toEqual(Object.keys(changes).sort());
    for (const a of fixed) {
      const refused = await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: a.name, value: changes[a.name].other }] } });
      expect(refused.status, a.name).toBe(400);
      expect(refused.body, a.name).toMatchObject({ schemas: [SCIM_ERROR], scimType: 'mutability' });
      const kept = await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: a.name, value: changes[a.name].same }] } });
      expect(kept.status, `${a.name}: ${JSON.stringify(kept.body)}`).toBe(200);
    }
    expect((await scim(`/Users/${id}`)).body).toMatchObject({ userName: current.userName, emails: current.emails, groups: current.groups });
    // Removing them is a change too; so is a PUT with another address.
    expect((await scim(`/Users/${id}`, { method: 'PATCH', body: { Operations: [{ op: 'remove', path: 'emails[type eq "work"]' }] } })).body.scimType).toBe('mutability');
    const put = await scim(`/Users/${id}`, { method: 'PUT', body: { schemas: [USER_URN], userName, emails: [{ value: `x.${tag()}@${domain}`, type: 'work', primary: true }] } });
    expect(put.status).toBe(400);
    expect(put.body.scimType).toBe('mutability');
  });

  it('a PATCH naming an attribute the schema does not define is 400 invalidPath, and nothing changes', async () => {
    const { scim, domain } = await scimOrganization(app);
    const id = (await scim('/Users', { body: { userName: `path.${tag()}@${domain}`, name: { givenName: 'Path' } } })).body.id;
    for (const path of ['title', 'name.middleName', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:title', 'phoneNumbers[type eq "work"].value']) {
      const res = await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'name.givenName', value: 'Changed' }, { op: 'Replace', path, value: 'x' }] } });
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({ schemas: [SCIM_ERROR], scimType: 'invalidPath' });
    }
    expect((await scim(`/Users/${id}`)).body.name.givenName).toBe('Path');
    // The URN of the User schema itself, a path-less value with path keys, and string booleans all apply.
    const ok = await scim(`/Users/${id}`, {
      method: 'PATCH',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: `${USER_URN}:displayName`, value: 'Pat' }, { op: 'Replace', value: { 'name.familyName': 'Hu', active: 'False' } }] },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ displayName: 'Pat', name: { givenName: 'Path', familyName: 'Hu' }, active: false });
  });
});

describe('attributes and excludedAttributes', () => {
  it('on users: one resource and lists, sub-attributes and URN paths; id and schemas always come back', async () => {
    const { scim, domain } = await scimOrganization(app);
    const userName = `sel.${tag()}@${domain}`;
    const id = (await scim('/Users', { body: { userName, externalId: `sel-${tag()}`, name: { givenName: 'Sel', familyName: 'Ect' } } })).body.id;

    expect((await scim(`/Users/${id}?attributes=userName`)).body).toEqual({ schemas: [USER_URN], id, userName });
    expect((await scim(`/Users/${id}?attributes=name.givenName,emails.value`)).body).toEqual({ schemas: [USER_URN], id, name: { givenName: 'Sel' }, emails: [{ value: userName }] });
    expect((await scim(`/Users/${id}?attributes=${encodeURIComponent(`${USER_URN}:userName`)}`)).body).toEqual({ schemas: [USER_URN], id, userName });

    const lean = (await scim(`/Users/${id}?excludedAttributes=groups,meta,name.familyName,id`)).body;
    expect(lean).not.toHaveProperty('groups');
    expect(lean).not.toHaveProperty('meta');
    expect(lean).toMatchObject({ id, userName, name: { givenName: 'Sel' } });
    expect(lean.name).not.toHaveProperty('familyName');

    const listed = await scim(`/Users?${filterQuery(`userName eq "${userName}"`)}&attributes=userName,active`);
    expect(listed.body.Resources).toEqual([{ schemas: [USER_URN], id, userName, active: true }]);
    const excluded = await scim(`/Users?excludedAttributes=emails,groups&count=10`);
    expect(excluded.body.Resources.length).toBeGreaterThan(0);
    for (const r of excluded.body.Resources) {
      expect(r).not.toHaveProperty('emails');
      expect(r).not.toHaveProperty('groups');
      expect(r).toHaveProperty('userName');
    }
    // Answers to writes honour them too.
    const patched = await scim(`/Users/${id}?attributes=active`, { method: 'PATCH', body: { Operations: [{ op: 'replace', path: 'active', value: false }] } });
    expect(patched.body).toEqual({ schemas: [USER_URN], id, active: false });
  });

  it('on groups: one group and lists, members left out or reduced to their values', async () => {
    const { scim, domain } = await scimOrganization(app);
    const member = (await scim('/Users', { body: { userName: `m.${tag()}@${domain}` } })).body.id;
    const gid = (await scim('/Groups', { body: { displayName: 'Selective', members: [{ value: member }] } })).body.id;

    const without = (await scim(`/Groups/${gid}?excludedAttributes=members`)).body;
    expect(without).not.toHaveProperty('members');
    expect(without).toMatchObject({ id: gid, displayName: 'Selective' });
    expect((await scim(`/Groups/${gid}?attributes=displayName`)).body).toEqual({ schemas: [GROUP_URN], id: gid, displayName: 'Selective' });
    expect((await scim(`/Groups/${gid}?attributes=members.value`)).body).toEqual({ schemas: [GROUP_URN], id: gid, members: [{ value: member }] });

    const filtered = await scim(`/Groups?${filterQuery('displayName eq "selective"')}&excludedAttributes=members`);
    expect(ids(filtered)).toEqual([gid]);
    expect(filtered.body.Resources[0]).not.toHaveProperty('members');
    // A filter on members still sees them when the answer leaves them out.
    const byMember = await scim(`/Groups?${filterQuery(`members[value eq "${member}"]`)}&excludedAttributes=members`);
    expect(ids(byMember)).toEqual([gid]);
    expect(byMember.body.Resources[0]).not.toHaveProperty('members');
  });
});

describe('filters', () => {
  it('userName, emails.value and displayName compare case-insensitively with every operator; ids and externalId exactly', async () => {
    const { scim, domain } = await scimOrganization(app);
    const userName = `jane.doe.${tag()}@${domain}`;
    const created = (await scim('/Users', { body: { userName, externalId: `Okta-${tag()}`, displayName: 'Jane Doe' } })).body;
    const other = (await scim('/Users', { body: { userName: `john.${tag()}@${domain}`, displayName: 'John Roe' } })).body;
    const group = (await scim('/Groups', { body: { displayName: 'Sales EMEA' } })).body;
    const users = (f: string) => scim(`/Users?${filterQuery(f)}`).then(ids);

    expect(await users(`userName eq "${userName.toUpperCase()}"`)).toEqual([created.id]);
    expect(await users(`emails.value eq "${userName.toUpperCase()}"`)).toEqual([created.id]);
    expect(await users(`emails[type eq "WORK" and value eq "${userName.toUpperCase()}"]`)).toEqual([created.id]);
    expect(await users(`emails eq "${userName.toUpperCase()}"`)).toEqual([created.id]);
    expect(await users('displayName eq "JANE DOE"')).toEqual([created.id]);
    expect(await users('displayName sw "jane" or displayName co "ROE"')).toEqual([created.id, other.id]);
    expect(await users(`userName ew "${domain.toUpperCase()}" and not (displayName eq "john roe")`)).toEqual([created.id]);
    expect(await users(`externalId eq "${created.externalId.toUpperCase()}"`)).toEqual([]);
    expect(await users(`externalId eq "${created.externalId}"`)).toEqual([created.id]);
    expect(await users(`id eq "${created.id.toUpperCase()}"`)).toEqual([]);
    expect(await users(`active eq true and meta.created ge "${created.meta.created}"`)).toEqual([created.id, other.id]);
    expect(await users('externalId pr')).toEqual([created.id]);
    expect(ids(await scim(`/Groups?${filterQuery('displayName eq "SALES emea"')}`))).toEqual([group.id]);

    for (const bad of ['userName eq', 'title eq "CEO"', 'active gt true', `${'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'}:title eq "x"`]) {
      const res = await scim(`/Users?${filterQuery(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body, bad).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType: 'invalidFilter' });
    }
  });

  it('paging: startIndex below 1 is 1, a negative count is 0, and a malformed one is a SCIM 400', async () => {
    const { scim, domain } = await scimOrganization(app);
    // The organization's admin is one of its users too: four in all.
    for (let i = 0; i < 3; i++) await scim('/Users', { body: { userName: `page${i}.${tag()}@${domain}` } });
    expect((await scim('/Users?startIndex=0&count=2')).body).toMatchObject({ totalResults: 4, startIndex: 1, itemsPerPage: 2 });
    expect((await scim('/Users?startIndex=3&count=5')).body).toMatchObject({ totalResults: 4, startIndex: 3, itemsPerPage: 2 });
    expect((await scim('/Users?count=-1')).body).toMatchObject({ totalResults: 4, itemsPerPage: 0, Resources: [] });
    for (const q of ['startIndex=first', 'count=1.5', `filter=${encodeURIComponent('userName pr')}&filter=x`]) {
      const res = await scim(`/Users?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.headers.get('content-type'), q).toContain('application/scim+json');
      expect(res.body, q).toMatchObject({ schemas: [SCIM_ERROR], status: '400', scimType: 'invalidValue' });
    }
  });
});
