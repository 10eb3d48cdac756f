import { beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '@/server/endpoints';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { fixtures, type Owner } from './fixtures';

/**
 * Generated for every endpoint in the registry: missing key, revoked key, another
 * account, and another user (404). A new endpoint with path parameters must add a fixture.
 */
const app = useTestServer();
// Tenant prompt API (service keys) and SCIM (SCIM tokens) have their own security tests.
const secured = endpoints.filter((e) => e.auth !== 'none' && e.auth !== 'service' && e.auth !== 'scim');
const fill = (path: string, params: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, n) => encodeURIComponent(params[n] ?? 'x'));

let owner: Owner;
let stranger: { key: string; email: string; accountKey: string };
let outsider: { key: string; accountKey: string; email: string };
let revokedKey: string;
let blocked: { key: string };
let fresh: { key: string };

beforeAll(async () => {
  const account = await newAccount(app(), 'Owner account');
  const user = await newUser(app(), account);
  owner = { account, user, userKey: await userKey(app(), account, user.id) };
  const other = await newUser(app(), account);
  stranger = { key: await userKey(app(), account, other.id), email: other.email, accountKey: account.key };
  const otherAccount = await newAccount(app(), 'Other account');
  const otherUser = await newUser(app(), otherAccount);
  outsider = { key: await userKey(app(), otherAccount, otherUser.id), accountKey: otherAccount.key, email: otherUser.email };
  const suspended = await newUser(app(), account);
  blocked = { key: await userKey(app(), account, suspended.id) };
  await call(app(), `/users/${suspended.id}`, { key: account.key, method: 'PUT', body: { status: 'suspended' } });
  const newcomer = await newUser(app(), account, { onboard: false });
  fresh = { key: await userKey(app(), account, newcomer.id) };
  const k = await call(app(), '/api-keys', { key: account.key, body: { label: 'to revoke' } });
  revokedKey = k.body.apiKey.key;
  await call(app(), `/api-keys/${k.body.apiKey.id}/revoke`, { key: account.key, method: 'POST' });
});

it('every endpoint with path parameters has a security fixture', () => {
  const missing = [...new Set(secured.filter((e) => e.path.includes('{') && !fixtures[e.path]).map((e) => e.path))];
  expect(missing).toEqual([]);
});

describe.each(secured.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', (_name, ep) => {
  it('refuses a missing key with 401 unauthorized', async () => {
    const res = await call(app(), fill(ep.path, {}), { method: ep.method, key: null, body: ep.method === 'GET' ? undefined : {} });
    expect(res.status).toBe(401);
    expect(res.body.error_code).toBe('unauthorized');
  });

  it('refuses a revoked key with 401 {ok:false}', async () => {
    const res = await call(app(), fill(ep.path, {}), { method: ep.method, key: revokedKey, body: ep.method === 'GET' ? undefined : {} });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false });
  });

  it('refuses a suspended user with 403 account_blocked', async () => {
    const res = await call(app(), fill(ep.path, {}), { method: ep.method, key: blocked.key, body: ep.method === 'GET' ? undefined : {} });
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('account_blocked');
  });

  it(ep.onboardingExempt ? 'lets a user who has not finished setup through' : 'answers 428 onboarding_required to a user who has not finished setup', async () => {
    const res = await call(app(), fill(ep.path, {}), { method: ep.method, key: fresh.key, body: ep.method === 'GET' ? undefined : {} });
    if (ep.onboardingExempt) expect(res.status).not.toBe(428);
    else {
      expect(res.status).toBe(428);
      expect(res.body.error_code).toBe('onboarding_required');
    }
  });

  const fixture = fixtures[ep.path];
  if (!fixture) return;
  const bodyFor = (m: string) => (m === 'GET' ? undefined : ((fixture.body as Record<string, unknown> | undefined)?.[m] ?? {}));

  it("answers 404 for another account's resource", async () => {
    const params = await fixture.create(app(), owner);
    const url = fill(ep.path, params);
    for (const cred of [{ key: outsider.accountKey }, { key: outsider.key }, { key: outsider.accountKey, as: outsider.email }]) {
      const res = await call(app(), url, { method: ep.method, ...cred, body: bodyFor(ep.method) });
      // A user-only endpoint refuses a bare account key before looking at the resource.
      const expected = ep.auth === 'user' && !('as' in cred) && cred.key === outsider.accountKey ? 401 : 404;
      expect(res.status, JSON.stringify(res.body)).toBe(expected);
    }
  });

  if (fixture.ownership === 'user') {
    it("answers 404 for another user's resource", async () => {
      const params = await fixture.create(app(), owner);
      const url = fill(ep.path, params);
      for (const cred of [{ key: stranger.key }, { key: stranger.accountKey, as: stranger.email }]) {
        const res = await call(app(), url, { method: ep.method, ...cred, body: bodyFor(ep.method) });
        expect(res.status, JSON.stringify(res.body)).toBe(404);
      }
    });
  }
});
