import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server';

/**
 * Errors the kernel answers before any SCIM handler runs are still in SCIM's error shape under
 * /scim/v2 (an IdP reads only that), and stay in Steward's shape everywhere else.
 */
const app = useTestServer();
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

async function raw(path: string, init: RequestInit = {}) {
  const res = await fetch(`${app().baseUrl}${path}`, init);
  return { status: res.status, type: res.headers.get('content-type'), allow: res.headers.get('allow'), auth: res.headers.get('www-authenticate'), body: await res.json() };
}

describe('kernel errors under /scim/v2', () => {
  it('an unknown path is a SCIM 404', async () => {
    const r = await raw('/scim/v2/Nothing');
    expect(r.status).toBe(404);
    expect(r.type).toContain('application/scim+json');
    expect(r.body).toMatchObject({ schemas: [SCIM_ERROR], status: '404', detail: expect.stringContaining('No endpoint') });
    expect(r.body.ok).toBeUndefined();
  });

  it('a wrong method is a SCIM 405 that keeps its Allow header', async () => {
    const r = await raw('/scim/v2/ServiceProviderConfig', { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.allow).toContain('GET');
    expect(r.body).toMatchObject({ schemas: [SCIM_ERROR], status: '405' });
  });

  it('a refused token keeps its SCIM 401 and Bearer challenge', async () => {
    const r = await raw('/scim/v2/Users', { headers: { Authorization: `Bearer scim_${'0'.repeat(64)}` } });
    expect(r.status).toBe(401);
    expect(r.auth).toContain('Bearer realm="SCIM"');
    expect(r.body).toMatchObject({ schemas: [SCIM_ERROR], status: '401' });
  });

  it('outside /scim/v2 errors keep Steward’s shape', async () => {
    const r = await raw('/no-such-thing');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ ok: false, status: 404, error_code: 'not_found' });
  });
});
