import { describe, expect, it } from 'vitest';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { PATCH_OP, USER_URN, filterQuery, scimOrganization, tag } from './scim-client';

/*
 * The enterprise User extension as Entra ID sends it (RFC 7643 §4.3): kept from POST, changed by
 * PATCH in Entra's forms (URN paths, capitalised ops, the manager as a bare id, a path-less value),
 * returned under its URN, published in /Schemas and /ResourceTypes, and filterable.
 */
const app = useTestServer();
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

describe('enterprise User extension', () => {
  it('is stored from POST, changed by PATCH, returned under its URN and filterable', async () => {
    const { scim, domain } = await scimOrganization(app);
    const created = await scim('/Users', {
      body: {
        schemas: [USER_URN, ENTERPRISE],
        userName: `ent.${tag()}@${domain}`,
        name: { givenName: 'Ent', familyName: 'User' },
        [ENTERPRISE]: { employeeNumber: '701984', department: 'Engineering', costCenter: 'CC-1', manager: { value: 'mgr-1' } },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.schemas).toEqual([USER_URN, ENTERPRISE]);
    expect(created.body[ENTERPRISE]).toEqual({ employeeNumber: '701984', department: 'Engineering', costCenter: 'CC-1', manager: { value: 'mgr-1' } });
    const id = created.body.id;

    const patched = await scim(`/Users/${id}`, {
      method: 'PATCH',
      body: {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Research' },
          { op: 'Add', path: `${ENTERPRISE}:division`, value: 'Labs' },
          { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'mgr-2' },
          { op: 'Replace', value: { [`${ENTERPRISE}:organization`]: 'Contoso', 'name.givenName': 'Enter' } },
          { op: 'Remove', path: `${ENTERPRISE}:costCenter` },
        ],
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body[ENTERPRISE]).toEqual({ employeeNumber: '701984', department: 'Research', division: 'Labs', organization: 'Contoso', manager: { value: 'mgr-2' } });
    expect(patched.body.name.givenName).toBe('Enter');
    expect((await scim(`/Users/${id}`)).body[ENTERPRISE]).toEqual(patched.body[ENTERPRISE]);

    const found = await scim(`/Users?${filterQuery(`${ENTERPRISE}:employeeNumber eq "701984"`)}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
    expect(found.body.Resources[0][ENTERPRISE].department).toBe('Research');
    expect((await scim(`/Users?${filterQuery(`${ENTERPRISE}:department eq "research"`)}`)).body.totalResults).toBe(1);
    expect((await scim(`/Users?${filterQuery(`${ENTERPRISE}:employeeNumber eq "000"`)}`)).body.totalResults).toBe(0);
    const selected = await scim(`/Users/${id}?attributes=${encodeURIComponent(`${ENTERPRISE}:department`)}`);
    expect(selected.body[ENTERPRISE]).toEqual({ department: 'Research' });
    expect(selected.body.userName).toBeUndefined();

    // A wrong type is refused as SCIM's invalidValue, and nothing changes.
    const bad = await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: `${ENTERPRISE}:department`, value: 42 }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.scimType).toBe('invalidValue');
  });

  it('is published in /Schemas and as the User resource type’s extension', async () => {
    const schema = await call(app(), `/scim/v2/Schemas/${ENTERPRISE}`);
    expect(schema.status).toBe(200);
    expect(schema.body.attributes.map((a: { name: string }) => a.name)).toEqual(['employeeNumber', 'costCenter', 'organization', 'division', 'department', 'manager']);
    const user = await call(app(), '/scim/v2/ResourceTypes/User');
    expect(user.body.schemaExtensions).toEqual([{ schema: ENTERPRISE, required: false }]);
    const core = await call(app(), `/scim/v2/Schemas/${USER_URN}`);
    expect(core.body.attributes.map((a: { name: string }) => a.name)).not.toContain('enterpriseUser');
  });
});
