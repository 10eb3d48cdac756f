import { describe, expect, it } from 'vitest';
import { MeResponse } from '@/server/access/contracts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

describe('GET /me', () => {
  it('describes an account key', async () => {
    const acct = await newAccount(app());
    const res = await call(app(), '/me', { key: acct.key });
    expect(res.status).toBe(200);
    expect(MeResponse.parse(res.body)).toEqual({ ok: true, accountId: acct.accountId, email: null, orgId: null, userId: null, scopes: [] });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('describes a user key and an account key acting as a user', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const key = await userKey(app(), acct, u.id);
    const viaKey = await call(app(), '/me', { key });
    expect(viaKey.body).toMatchObject({ accountId: acct.accountId, userId: u.id, email: u.email, orgId: null });
    const viaHeader = await call(app(), '/me', { key: acct.key, as: u.email.toUpperCase() });
    expect(viaHeader.body).toMatchObject({ userId: u.id, email: u.email });
  });

  it('refuses a missing, malformed or unknown credential', async () => {
    expect((await call(app(), '/me')).body).toMatchObject({ status: 401, error_code: 'unauthorized' });
    const malformed = await call(app(), '/me', { headers: { Authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    const unknown = await call(app(), '/me', { key: 'ak_live_' + '0'.repeat(64) });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ ok: false });
  });

  it('never falls back to account-wide access when X-User-Email matches no one', async () => {
    const acct = await newAccount(app());
    const res = await call(app(), '/me', { key: acct.key, as: 'nobody@example.com' });
    expect(res.status).toBe(401);
    expect(res.body.error_code).toBe('unauthorized');
  });
});
