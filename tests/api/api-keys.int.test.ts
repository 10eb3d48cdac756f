import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { organizations, users } from '@/db/schema';
import { ApiKeyEnvelope, ListApiKeysResponse } from '@/server/access/contracts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function orgWithAdmin() {
  const acct = await newAccount(app());
  const admin = await newUser(app(), acct);
  const member = await newUser(app(), acct);
  const [org] = await app().database.db.insert(organizations).values({ accountId: acct.accountId, name: 'Org' }).returning();
  await app().database.db.update(users).set({ organizationId: org.id, organizationRole: 'admin' }).where(eq(users.id, admin.id));
  await app().database.db.update(users).set({ organizationId: org.id, organizationRole: 'member' }).where(eq(users.id, member.id));
  return { acct, admin, member, org };
}

describe('POST /api-keys', () => {
  it('creates an account-wide key shown once, stored only as a hash', async () => {
    const acct = await newAccount(app());
    const res = await call(app(), '/api-keys', { key: acct.key, body: { label: 'ci', scopes: ['tasks:read'] } });
    expect(res.status).toBe(201);
    const { apiKey } = ApiKeyEnvelope.parse(res.body);
    expect(apiKey.key).toMatch(/^ak_live_[0-9a-f]{64}$/);
    expect(apiKey.key!.startsWith(apiKey.prefix)).toBe(true);
    expect(apiKey).toMatchObject({ account: acct.accountId, organization: null, user: null, status: 'active', scopes: ['tasks:read'] });
    const me = await call(app(), '/me', { key: apiKey.key });
    expect(me.body.scopes).toEqual(['tasks:read']);
    const list = await call(app(), '/api-keys', { key: acct.key });
    const listed = list.body.apiKeys.find((k: { id: string }) => k.id === apiKey.id);
    expect(listed.key).toBeUndefined();
    const raw = await app().database.pool.query('SELECT key_hash FROM api_keys WHERE id = $1', [apiKey.id]);
    expect(raw.rows[0].key_hash).not.toContain(apiKey.key!.slice(8));
  });

  it('names each bad field', async () => {
    const acct = await newAccount(app());
    const res = await call(app(), '/api-keys', { key: acct.key, body: { expiresAt: 'tomorrow', scopes: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('bad_request');
    expect(res.body.error).toContain('label');
    expect(res.body.error).toContain('expiresAt');
    expect(res.body.error).toContain('scopes');
    const past = await call(app(), '/api-keys', { key: acct.key, body: { label: 'x', expiresAt: '2001-01-01T00:00:00Z' } });
    expect(past.status).toBe(400);
  });

  it('creates user keys: for self, and for others only with admin rights', async () => {
    const { acct, admin, member, org } = await orgWithAdmin();
    const outsider = await newUser(app(), acct);
    const self = await call(app(), '/api-keys', { key: acct.key, as: member.email, body: { label: 'mine' } });
    expect(self.status).toBe(201);
    expect(self.body.apiKey.user).toBe(member.id);
    const forOther = await call(app(), '/api-keys', { key: acct.key, as: member.email, body: { label: 'x', userId: admin.id } });
    expect(forOther.status).toBe(403);
    const byAdmin = await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'x', userId: member.id } });
    expect(byAdmin.status).toBe(201);
    // Someone of the account outside the admin's organization: 403 "not allowed to create this kind" (spec 1); 404 is for a user not in the account.
    const outsideOrg = await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'x', userId: outsider.id } });
    expect(outsideOrg.status).toBe(403);
    expect(outsideOrg.body.error).toMatch(/not allowed to create this kind/i);
    const orgKey = await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'org' } });
    expect(orgKey.body.apiKey).toMatchObject({ organization: org.id, user: null });
    const orgMe = await call(app(), '/me', { key: orgKey.body.apiKey.key });
    expect(orgMe.body).toMatchObject({ orgId: org.id, userId: null });
    const missing = await call(app(), '/api-keys', { key: acct.key, body: { label: 'x', userId: 'ffffffffffffffffffffffff' } });
    expect(missing.status).toBe(404);
  });

  it('a user key asking for a key for another user of the account is 403; a user not in the account is 404 (issue 46)', async () => {
    const acct = await newAccount(app());
    const [alice, bob] = [await newUser(app(), acct), await newUser(app(), acct)];
    const other = await newAccount(app());
    const stranger = await newUser(app(), other);
    const k = await userKey(app(), acct, alice.id);
    const forBob = await call(app(), '/api-keys', { key: k, body: { label: 'x', userId: bob.id } });
    expect(forBob.status).toBe(403);
    expect(forBob.body.error).toMatch(/not allowed to create this kind/i);
    const forStranger = await call(app(), '/api-keys', { key: k, body: { label: 'x', userId: stranger.id } });
    expect(forStranger.status).toBe(404);
    const forSelf = await call(app(), '/api-keys', { key: k, body: { label: 'x', userId: alice.id } });
    expect(forSelf.status).toBe(201);
    const keys = await app().database.pool.query('SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1', [bob.id]);
    expect(keys.rows[0].n).toBe(0);
  });

  it('a user key cannot be combined with X-User-Email', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const k = await userKey(app(), acct, u.id);
    const res = await call(app(), '/me', { key: k, as: u.email });
    expect(res.status).toBe(400);
  });
});

describe('GET /api-keys', () => {
  it('lists newest first with pagination; a user sees only their keys', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    for (const label of ['a', 'b', 'c']) await call(app(), '/api-keys', { key: acct.key, body: { label } });
    await call(app(), '/api-keys', { key: acct.key, as: u.email, body: { label: 'personal' } });
    const page = await call(app(), '/api-keys?perPage=2&page=1', { key: acct.key });
    const parsed = ListApiKeysResponse.parse(page.body);
    expect(parsed).toMatchObject({ page: 1, perPage: 2, total: 5 });
    expect(parsed.apiKeys.map((k) => k.label)).toEqual(['personal', 'c']);
    const capped = await call(app(), '/api-keys?perPage=500', { key: acct.key });
    expect(capped.body.perPage).toBe(100);
    const mine = await call(app(), '/api-keys', { key: acct.key, as: u.email });
    expect(mine.body.apiKeys.map((k: { label: string }) => k.label)).toEqual(['personal']);
    expect(mine.body.total).toBe(1);
    const last = await call(app(), '/api-keys?perPage=2&page=3', { key: acct.key });
    expect(last.body).toMatchObject({ page: 3, total: 5 });
    expect(last.body.apiKeys).toHaveLength(1);
    const past = await call(app(), '/api-keys?perPage=2&page=9', { key: acct.key });
    expect(past.body).toMatchObject({ apiKeys: [], page: 9, total: 5 });
    const bad = await call(app(), '/api-keys?page=0', { key: acct.key });
    expect(bad.status).toBe(400);
  });

  it('organization view needs the organization admin role', async () => {
    const { acct, admin, member } = await orgWithAdmin();
    await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'org key' } });
    await call(app(), '/api-keys', { key: acct.key, as: member.email, body: { label: 'member key' } });
    const denied = await call(app(), '/api-keys?resource=organization', { key: acct.key, as: member.email });
    expect(denied.status).toBe(403);
    const orgKeys = await call(app(), '/api-keys?resource=organization', { key: acct.key, as: admin.email });
    expect(orgKeys.body.apiKeys.map((k: { label: string }) => k.label)).toEqual(['org key']);
    const userKeys = await call(app(), '/api-keys?resource=organization&scope=user', { key: acct.key, as: admin.email });
    expect(userKeys.body.apiKeys.map((k: { label: string }) => k.label)).toContain('member key');
  });

  it('keeps lastUsedAt current', async () => {
    const acct = await newAccount(app());
    const created = await call(app(), '/api-keys', { key: acct.key, body: { label: 'used' } });
    expect(created.body.apiKey.lastUsedAt).toBeNull();
    await call(app(), '/me', { key: created.body.apiKey.key });
    const list = await call(app(), '/api-keys', { key: acct.key });
    const k = list.body.apiKeys.find((x: { id: string }) => x.id === created.body.apiKey.id);
    expect(k.lastUsedAt).not.toBeNull();
    await app().kernel.lastUsed.flush();
    const row = await app().database.pool.query('SELECT last_used_at FROM api_keys WHERE id = $1', [k.id]);
    expect(row.rows[0].last_used_at).not.toBeNull();
  });
});

describe('revoke and delete', () => {
  it('revoke stops the key at once; a second revoke is 400; only revoked keys delete', async () => {
    const acct = await newAccount(app());
    const created = await call(app(), '/api-keys', { key: acct.key, body: { label: 'temp' } });
    const { id, key } = created.body.apiKey;
    const active = await call(app(), `/api-keys/${id}`, { key: acct.key, method: 'DELETE' });
    expect(active.status).toBe(400);
    const revoked = await call(app(), `/api-keys/${id}/revoke`, { key: acct.key, method: 'POST' });
    expect(revoked.status).toBe(200);
    expect(revoked.body.apiKey.status).toBe('revoked');
    expect(await call(app(), '/me', { key })).toMatchObject({ status: 401, body: { ok: false } });
    expect((await call(app(), `/api-keys/${id}/revoke`, { key: acct.key, method: 'POST' })).status).toBe(400);
    expect((await call(app(), `/api-keys/${id}`, { key: acct.key, method: 'DELETE' })).body).toEqual({ ok: true });
    expect((await call(app(), `/api-keys/${id}`, { key: acct.key, method: 'DELETE' })).status).toBe(404);
  });

  it("a member cannot revoke the organization's key (403); an admin can", async () => {
    const { acct, admin, member } = await orgWithAdmin();
    const orgKey = await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'org' } });
    const id = orgKey.body.apiKey.id;
    expect((await call(app(), `/api-keys/${id}/revoke`, { key: acct.key, as: member.email, method: 'POST' })).status).toBe(403);
    expect((await call(app(), `/api-keys/${id}/revoke`, { key: acct.key, as: admin.email, method: 'POST' })).status).toBe(200);
  });

  it('an expired key is refused with {ok:false}', async () => {
    const acct = await newAccount(app());
    const created = await call(app(), '/api-keys', {
      key: acct.key,
      body: { label: 'short', expiresAt: new Date(Date.now() + 1500).toISOString() },
    });
    expect((await call(app(), '/me', { key: created.body.apiKey.key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    expect(await call(app(), '/me', { key: created.body.apiKey.key })).toMatchObject({ status: 401, body: { ok: false } });
  });
});
