import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function keyWith(acct: AccountFixture, body: Record<string, unknown>, creator = acct.key) {
  const res = await call(app(), '/api-keys', { key: creator, body: { label: 'scoped', ...body } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.apiKey as { key: string; scopes: string[]; expiresAt: string | null };
}

describe('API key scopes are enforced', () => {
  it('a key reaches only the areas and access its scopes name; GET /me answers every key', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const memoriesRead = await keyWith(acct, { scopes: ['memories:read'] });

    expect((await call(app(), '/memories', { key: memoriesRead.key, as: u.email })).status).toBe(200);
    const write = await call(app(), '/memories', { key: memoriesRead.key, as: u.email, body: { content: 'note' } });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error_code: 'insufficient_scope', requiredScope: 'memories:write' });
    expect((await call(app(), '/contacts', { key: memoriesRead.key, as: u.email })).body.error_code).toBe('insufficient_scope');
    expect((await call(app(), '/users', { key: memoriesRead.key })).status).toBe(403);
    expect((await call(app(), '/me', { key: memoriesRead.key })).body).toMatchObject({ ok: true, scopes: ['memories:read'] });
    // Nothing was written through the refused call.
    expect((await call(app(), '/memories', { key: acct.key, as: u.email })).body.memories).toHaveLength(0);

    const readAll = await keyWith(acct, { scopes: ['read'] });
    expect((await call(app(), '/users', { key: readAll.key })).status).toBe(200);
    expect((await call(app(), `/users/${u.id}`, { key: readAll.key })).status).toBe(200);
    expect((await call(app(), '/users/provision', { key: readAll.key, body: { email: 'new@scopes.example' } })).status).toBe(403);
    expect((await call(app(), `/users/${u.id}`, { key: readAll.key, method: 'PUT', body: { firstName: 'No' } })).status).toBe(403);
    expect((await call(app(), `/users/${u.id}`, { key: acct.key })).body.user.firstName).not.toBe('No');

    // <area>:write covers reading the area too.
    const usersWrite = await keyWith(acct, { scopes: ['users:write'] });
    expect((await call(app(), `/users/${u.id}`, { key: usersWrite.key, method: 'PUT', body: { firstName: 'Yes' } })).status).toBe(200);
    expect((await call(app(), `/users/${u.id}`, { key: usersWrite.key })).body.user.firstName).toBe('Yes');
    expect((await call(app(), '/teams', { key: usersWrite.key })).status).toBe(403);

    // No scopes: no restriction (the spec's default).
    const open = await keyWith(acct, {});
    expect(open.scopes).toEqual([]);
    expect((await call(app(), '/memories', { key: open.key, as: u.email, body: { content: 'note' } })).status).toBe(201);
  });

  it('unknown scopes are a 400 naming the field', async () => {
    const acct = await newAccount(app());
    const res = await call(app(), '/api-keys', { key: acct.key, body: { label: 'x', scopes: ['memories:read', 'admin', 'memories:delete'] } });
    expect(res.status).toBe(400);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual(['scopes.1', 'scopes.2']);
    expect((await call(app(), '/api-keys', { key: acct.key })).body.total).toBe(1);
  });

  it('a scoped key makes only keys within its scopes; what the request omits is inherited', async () => {
    const acct = await newAccount(app());
    const parent = await keyWith(acct, { scopes: ['api-keys:write', 'memories:write'] });

    const narrower = await call(app(), '/api-keys', { key: parent.key, body: { label: 'n', scopes: ['memories:read'] } });
    expect(narrower.status).toBe(201);
    expect(narrower.body.apiKey.scopes).toEqual(['memories:read']);

    const inherited = await call(app(), '/api-keys', { key: parent.key, body: { label: 'i' } });
    expect(inherited.status).toBe(201);
    expect(inherited.body.apiKey.scopes).toEqual(['api-keys:write', 'memories:write']);

    for (const scopes of [['contacts:read'], ['read'], ['write'], [], ['memories:read', 'users:write']]) {
      const wider = await call(app(), '/api-keys', { key: parent.key, body: { label: 'w', scopes } });
      expect(wider.status, JSON.stringify(scopes)).toBe(400);
      expect(wider.body.fields.map((f: { field: string }) => f.field)).toEqual(['scopes']);
    }
    // The unrestricted key made by a grandchild is refused too: the chain only narrows.
    const child = (await call(app(), '/api-keys', { key: parent.key, body: { label: 'c', scopes: ['api-keys:write'] } })).body.apiKey;
    expect((await call(app(), '/api-keys', { key: child.key, body: { label: 'g', scopes: [] } })).status).toBe(400);

    // A key without api-keys write access cannot make keys at all.
    const readOnly = await keyWith(acct, { scopes: ['read'] });
    const refused = await call(app(), '/api-keys', { key: readOnly.key, body: { label: 'r', scopes: ['read'] } });
    expect(refused.status).toBe(403);
    expect(refused.body.error_code).toBe('insufficient_scope');
    const labels = (await call(app(), '/api-keys?perPage=100', { key: acct.key })).body.apiKeys.map((k: { label: string }) => k.label);
    expect(labels.filter((l: string) => l === 'w' || l === 'g' || l === 'r')).toEqual([]);
  });
});

describe('API key lifetime', () => {
  it('a key never outlives the key that created it', async () => {
    const acct = await newAccount(app());
    const inAnHour = new Date(Date.now() + 3600_000);
    const expiring = await keyWith(acct, { expiresAt: inAnHour.toISOString() });

    const omitted = await call(app(), '/api-keys', { key: expiring.key, body: { label: 'child' } });
    expect(omitted.status).toBe(201);
    expect(omitted.body.apiKey.expiresAt).toBe(expiring.expiresAt);

    const later = await call(app(), '/api-keys', { key: expiring.key, body: { label: 'later', expiresAt: new Date(Date.now() + 7200_000).toISOString() } });
    expect(later.status).toBe(400);
    expect(later.body.fields.map((f: { field: string }) => f.field)).toEqual(['expiresAt']);

    const sooner = new Date(Date.now() + 1800_000).toISOString();
    const shorter = await call(app(), '/api-keys', { key: expiring.key, body: { label: 'sooner', expiresAt: sooner } });
    expect(shorter.status).toBe(201);
    expect(new Date(shorter.body.apiKey.expiresAt).getTime()).toBe(new Date(sooner).getTime());

    // The chain holds: a grandchild inherits the nearer expiry.
    const grandchild = await call(app(), '/api-keys', { key: shorter.body.apiKey.key, body: { label: 'grandchild' } });
    expect(grandchild.body.apiKey.expiresAt).toBe(shorter.body.apiKey.expiresAt);

    // A user key made by an expiring account key expires with it too.
    const u = await newUser(app(), acct);
    const userKey = await call(app(), '/api-keys', { key: expiring.key, body: { label: 'for user', userId: u.id } });
    expect(userKey.body.apiKey.expiresAt).toBe(expiring.expiresAt);

    // A key that never expires still makes keys that never expire unless asked.
    expect((await call(app(), '/api-keys', { key: acct.key, body: { label: 'forever' } })).body.apiKey.expiresAt).toBeNull();
  });
});
