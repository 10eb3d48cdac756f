import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setRateLimits } from '@/server/accounts/service';
import { setHostedDomain } from '@/server/hosted/accounts';
import { proxyTo } from '@/server/http/proxy';
import { startMailCapture, type CapturedMail } from '@/server/mail/capture';
import { call, newAccount, newUser } from '../helpers/client';
import { hosted } from '../helpers/hosted';
import { useTestServer } from '../helpers/server';

/**
 * Host, X-Forwarded-Host, X-Forwarded-Proto and X-Forwarded-For are the client's to write: they
 * may choose among configured hosts and, behind a trusted proxy (TRUST_PROXY=1), name the proxy's
 * view of the client. They never make an origin, a route or a rate-limit key of their own.
 */
const app = useTestServer();
const publicUrl = () => new URL(app().baseUrl).origin;
const ATTACKER = 'attacker.example';

afterEach(() => {
  vi.unstubAllEnvs();
});

/**
 * A browser speaking to /api/auth/* (the route's own handler) with the given headers, keeping
 * its cookies between requests.
 */
function authClient(headers: Record<string, string>) {
  const jar = new Map<string, string>();
  return async (path: string[], method: 'GET' | 'POST', form?: Record<string, string>) => {
    vi.stubEnv('DATABASE_URL', app().database.pool.options.connectionString as string);
    const { portalAuth } = await import('@/server/sign-in/next-auth-handler');
    const cookie = [...jar].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    const req = new Request(`http://${headers.host}/api/auth/${path.join('/')}`, {
      method,
      headers: { ...headers, ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    const res = await portalAuth(req as never, { params: Promise.resolve({ nextauth: path }) });
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0];
      jar.set(pair.slice(0, pair.indexOf('=')), decodeURIComponent(pair.slice(pair.indexOf('=') + 1)));
    }
    return res;
  };
}

describe('one account without a hosted domain: the public origin, whatever Host claims', () => {
  const mail: CapturedMail[] = [];
  let capture: Awaited<ReturnType<typeof startMailCapture>>;
  beforeAll(async () => {
    capture = await startMailCapture((m) => mail.push(m));
  });
  afterAll(async () => {
    await capture?.close();
  });

  it('the emailed sign-in link, and where it leads, are on STEWARD_PUBLIC_URL, not on the Host or X-Forwarded-Host of the request', async () => {
    vi.stubEnv('SMTP_URL', capture.url);
    const only = await newAccount(app(), 'Only account');
    const person = await newUser(app(), only);
    const send = authClient({ host: ATTACKER, 'x-forwarded-host': ATTACKER, 'x-forwarded-proto': 'https' });
    const csrf = (await (await send(['csrf'], 'GET')).json()) as { csrfToken: string };
    const asked = await send(['signin', 'email'], 'POST', { email: person.email, csrfToken: csrf.csrfToken, callbackUrl: `https://${ATTACKER}/welcome`, json: 'true' });
    expect(asked.status).toBe(200);
    expect(new URL(((await asked.json()) as { url: string }).url).origin).toBe(publicUrl());
    const sent = mail.filter((m) => m.to.includes(person.email));
    expect(sent).toHaveLength(1);
    const link = /https?:\/\/\S+\/api\/auth\/callback\/email\?\S+/.exec(sent[0].text)?.[0];
    expect(link).toBeTruthy();
    expect(new URL(link!).origin).toBe(publicUrl());
    expect(sent[0].text).not.toContain('attacker');
  });

  it('SAML metadata uses the public origin, whatever Host and X-Forwarded-* say; unset, it is http://localhost:PORT', async () => {
    const metadata = (headers: Record<string, string> = {}) => hosted(`${app().baseUrl}/sso/saml/metadata`, { host: ATTACKER, headers });
    const res = await metadata({ 'X-Forwarded-Host': 'other.example', 'X-Forwarded-Proto': 'https' });
    expect(res.status).toBe(200);
    expect(res.body).toContain(`entityID="${publicUrl()}/api/sso/saml/metadata"`);
    expect(res.body).toContain(`Location="${publicUrl()}/api/sso/saml/acs"`);
    expect(res.body).not.toContain('attacker');
    expect(res.body).not.toContain('other.example');

    vi.stubEnv('STEWARD_PUBLIC_URL', 'https://steward.example.org');
    expect((await metadata()).body).toContain('entityID="https://steward.example.org/api/sso/saml/metadata"');
    vi.stubEnv('STEWARD_PUBLIC_URL', undefined);
    vi.stubEnv('PORT', '4123');
    expect((await metadata()).body).toContain('entityID="http://localhost:4123/api/sso/saml/metadata"');
  });

  it('tRPC compares Origin with the configured origin: the Host’s own origin is cross-site, Origin: null is refused with 403, not a 500', async () => {
    vi.stubEnv('DATABASE_URL', app().database.pool.options.connectionString as string);
    const { trpcHandler } = await import('@/server/trpc/handler');
    const post = (origin: string) =>
      trpcHandler(
        new Request(`http://${ATTACKER}/api/trpc/auth.start`, {
          method: 'POST',
          headers: { host: ATTACKER, origin, 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'someone@elsewhere.example' }),
        }),
      );
    const fromNull = await post('null');
    expect(fromNull.status).toBe(403);
    expect(await fromNull.json()).toMatchObject({ error_code: 'forbidden' });
    expect((await post(`http://${ATTACKER}`)).status).toBe(403);
    const same = await post(publicUrl());
    expect(same.status).toBe(200);
    expect(same.headers.get('x-content-type-options')).toBe('nosniff');
    expect(same.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the kernel routes on the request path alone', () => {
  it('a Host carrying a path cannot change the endpoint, and a Host with a space is no 500', async () => {
    const injected = await hosted(`${app().baseUrl}/me`, { host: 'x/api/openapi.json?' });
    expect(injected.status).toBe(401);
    expect(injected.json()).toMatchObject({ error_code: 'unauthorized' });

    const spaced = await hosted(`${app().baseUrl}/openapi.json`, { host: 'a b' });
    expect(spaced.status).toBe(200);
    expect(spaced.json().openapi).toBeTruthy();
    expect((await hosted(`${app().baseUrl}/sso/saml/metadata`, { host: 'a b' })).status).toBeLessThan(500);
  });
});

describe('forwarded headers count only behind a trusted proxy', () => {
  it('X-Forwarded-Host and X-Forwarded-Proto are ignored without TRUST_PROXY; with it the proxy’s host picks the account, and the scheme still follows the host', async () => {
    const db = app().database.db;
    const one = await newAccount(app(), 'One');
    const two = await newAccount(app(), 'Two');
    await setHostedDomain(db, one.accountId, 'one.steward-origin.test');
    await setHostedDomain(db, two.accountId, 'two.steward-origin.test');
    const metadata = () =>
      hosted(`${app().baseUrl}/sso/saml/metadata`, { host: 'one.steward-origin.test', headers: { 'X-Forwarded-Host': 'two.steward-origin.test', 'X-Forwarded-Proto': 'http' } });

    const direct = await metadata();
    expect(direct.status).toBe(200);
    expect(direct.body).toContain('entityID="https://one.steward-origin.test/api/sso/saml/metadata"');

    vi.stubEnv('TRUST_PROXY', '1');
    const proxied = await metadata();
    expect(proxied.body).toContain('entityID="https://two.steward-origin.test/api/sso/saml/metadata"');
  });

  it('the client IP of a rate limit is the socket without TRUST_PROXY, and the right-most X-Forwarded-For entry with it', async () => {
    const db = app().database.db;
    const me = (key: string, xff: string) => call(app(), '/me', { key, headers: { 'X-Forwarded-For': xff } });

    const direct = await newAccount(app(), 'Direct');
    await setRateLimits(db, direct.accountId, { reads: 3, writes: null });
    const spoofed = [await me(direct.key, '10.0.0.1'), await me(direct.key, '10.0.0.2'), await me(direct.key, '10.0.0.3'), await me(direct.key, '10.0.0.4')];
    expect(spoofed.map((r) => r.status)).toEqual([200, 200, 200, 429]);

    vi.stubEnv('TRUST_PROXY', '1');
    const proxied = await newAccount(app(), 'Proxied');
    await setRateLimits(db, proxied.accountId, { reads: 3, writes: null });
    for (let i = 0; i < 3; i++) expect((await me(proxied.key, '192.0.2.7')).status).toBe(200);
    expect((await me(proxied.key, '192.0.2.7')).status).toBe(429);
    // The proxy appends what it saw: whatever the client wrote further left changes nothing.
    expect((await me(proxied.key, '203.0.113.9, 192.0.2.7')).status).toBe(429);
    expect((await me(proxied.key, '192.0.2.7, 192.0.2.8')).status).toBe(200);
  });

  it('Next.js is told Steward’s decision: the client’s forwarding headers are replaced, and https hosts get HSTS', async () => {
    const upstream = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ host: req.headers.host, xfh: req.headers['x-forwarded-host'], proto: req.headers['x-forwarded-proto'], xff: req.headers['x-forwarded-for'], forwarded: req.headers.forwarded ?? null }));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const front = http.createServer(proxyTo((upstream.address() as AddressInfo).port));
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
    const page = (host: string) =>
      hosted(`http://127.0.0.1:${(front.address() as AddressInfo).port}/sign-in`, {
        host,
        headers: { 'X-Forwarded-Host': ATTACKER, 'X-Forwarded-Proto': 'http', 'X-Forwarded-For': '203.0.113.1', Forwarded: `host=${ATTACKER}` },
      });
    try {
      const portal = await page('portal.steward-origin.test');
      expect(portal.json()).toEqual({ host: 'portal.steward-origin.test', xfh: 'portal.steward-origin.test', proto: 'https', xff: '127.0.0.1', forwarded: null });
      expect(portal.headers['strict-transport-security']).toBe('max-age=31536000');

      const local = await page('localhost:3000');
      expect(local.json()).toMatchObject({ host: 'localhost:3000', proto: 'http' });
      expect(local.headers['strict-transport-security']).toBeUndefined();

      vi.stubEnv('TRUST_PROXY', '1');
      expect((await page('internal:8080')).json()).toMatchObject({ host: ATTACKER, xfh: ATTACKER, proto: 'https', xff: '203.0.113.1' });
    } finally {
      await new Promise((r) => front.close(r));
      await new Promise((r) => upstream.close(r));
    }
  });
});

describe('failed authentications per client IP', () => {
  it('past the budget an address’s failed attempts get 429; its valid credentials still work, other addresses and missing credentials are not counted', async () => {
    const limits = app().kernel.rateLimits;
    const saved = limits.defaults.failedAuth;
    limits.defaults.failedAuth = 3;
    vi.stubEnv('TRUST_PROXY', '1');
    try {
      const acct = await newAccount(app(), 'Guessed');
      const from = (ip: string, key: string | null) => call(app(), '/me', { key, headers: { 'X-Forwarded-For': ip } });
      const wrong = `ak_live_${'f'.repeat(64)}`;
      for (let i = 0; i < 3; i++) expect((await from('198.51.100.1', wrong)).status).toBe(401);
      const refused = await from('198.51.100.1', wrong);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.body).toMatchObject({ ok: false });
      expect((await call(app(), '/scim/v2/Users', { key: 'scim_guess', headers: { 'X-Forwarded-For': '198.51.100.1' } })).status).toBe(429);
      // Many people may share an address: one of them guessing locks nobody else out.
      expect((await from('198.51.100.1', acct.key)).status).toBe(200);

      expect((await from('198.51.100.2', acct.key)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await from('198.51.100.3', null)).status).toBe(401);
      expect((await from('198.51.100.3', acct.key)).status).toBe(200);
    } finally {
      limits.defaults.failedAuth = saved;
    }
  });
});
