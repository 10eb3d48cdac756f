import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAccount } from '@/server/accounts/service';
import { setHostedDomain } from '@/server/hosted/accounts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { hosted } from '../helpers/hosted';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('every API answer', () => {
  it('carries nosniff and no-store, successes and refusals alike', async () => {
    const acct = await newAccount(app());
    const answers = [
      await call(app(), '/me', { key: acct.key }),
      await call(app(), '/me', { key: null }),
      await call(app(), '/me', { key: `ak_live_${'0'.repeat(64)}` }),
      await call(app(), '/no-such-endpoint', { key: acct.key }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 401, 404]);
    for (const a of answers) {
      expect(a.headers.get('x-content-type-options')).toBe('nosniff');
      expect(a.headers.get('cache-control')).toBe('no-store');
      expect(a.headers.get('x-request-id')).toBeTruthy();
    }
    // A public document keeps the caching its handler chose.
    const doc = await call(app(), '/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.headers.get('x-content-type-options')).toBe('nosniff');
    expect(doc.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('a response a handler builds itself (SAML metadata) gets them too', async () => {
    const acct = await createAccount(app().database.db, 'Metadata');
    await setHostedDomain(app().database.db, acct.accountId, 'meta.steward-headers.test');
    const res = await hosted(`${app().baseUrl}/sso/saml/metadata`, { host: 'meta.steward-headers.test' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('samlmetadata+xml');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('answers that carry a credential', () => {
  it('a new API key, user key and SCIM token are never stored by a cache', async () => {
    const acct = await newAccount(app());
    const user = await newUser(app(), acct);
    const created = await call(app(), '/api-keys', { key: acct.key, body: { label: 'cached?' } });
    expect(created.status).toBe(201);
    expect(created.body.apiKey.key).toMatch(/^ak_live_/);
    expect(created.headers.get('cache-control')).toBe('no-store');

    const forUser = await call(app(), '/api-keys', { key: acct.key, body: { label: 'user', userId: user.id } });
    expect(forUser.status).toBe(201);
    expect(forUser.headers.get('cache-control')).toBe('no-store');

    const org = await call(app(), '/organizations', { key: acct.key, body: { name: 'Cache test' } });
    const minted = await call(app(), `/organizations/${org.body.organization.id}/scim/token`, { key: acct.key, method: 'POST' });
    expect(minted.status).toBe(201);
    expect(minted.body.token).toMatch(/^scim_/);
    expect(minted.headers.get('cache-control')).toBe('no-store');
    expect(minted.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await userKey(app(), acct, user.id)).toMatch(/^ak_live_/);
  });
});

describe('HSTS', () => {
  it('is sent when the request’s host is served on https, and never for plain http', async () => {
    const acct = await newAccount(app());
    const me = (host: string) => hosted(`${app().baseUrl}/me`, { host, headers: { Authorization: `Bearer ${acct.key}` } });

    // The public origin of the tests is http://127.0.0.1:<port>: no HSTS.
    const plain = await me(new URL(app().baseUrl).host);
    expect(plain.status).toBe(200);
    expect(plain.headers['strict-transport-security']).toBeUndefined();

    // A deployment whose public URL is https answers with HSTS on that host.
    vi.stubEnv('STEWARD_PUBLIC_URL', 'https://api.steward-hsts.test');
    const secure = await me('api.steward-hsts.test');
    expect(secure.status).toBe(200);
    expect(secure.headers['strict-transport-security']).toBe('max-age=31536000');
    // A loopback host is plain http whatever the public URL says.
    expect((await me('localhost:3000')).headers['strict-transport-security']).toBeUndefined();
    vi.unstubAllEnvs();

    // A hosted domain is https: its SAML endpoints answer with HSTS.
    const other = await newAccount(app(), 'Hosted');
    await setHostedDomain(app().database.db, other.accountId, 'portal.steward-hsts.test');
    const metadata = await hosted(`${app().baseUrl}/sso/saml/metadata`, { host: 'portal.steward-hsts.test' });
    expect(metadata.status).toBe(200);
    expect(metadata.headers['strict-transport-security']).toBe('max-age=31536000');
  });
});
