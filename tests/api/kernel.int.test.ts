import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoints } from '@/server/endpoints';
import { setKillSwitch, setRateLimits } from '@/server/accounts/service';
import { defineEndpoint } from '@/server/http/endpoint';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/** Endpoints that exist only in this test, to exercise kernel rules no public endpoint has yet. */
const probes = [
  defineEndpoint({
    method: 'POST',
    path: '/probe/task',
    summary: 'probe',
    tags: ['Probe'],
    auth: 'user',
    killSwitch: true,
    body: z.object({ title: z.string() }),
    response: z.object({ ok: z.literal(true), title: z.string() }),
    handle: async ({ body }) => ({ ok: true as const, title: body.title }),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/probe/crash',
    summary: 'probe',
    tags: ['Probe'],
    auth: 'any',
    response: z.object({ ok: z.literal(true) }),
    handle: async () => {
      throw new Error('secret internals: connection string postgres://x');
    },
  }),
];

const app = useTestServer({ endpoints: [...endpoints, ...probes], rateLimits: { reads: 5, writes: 3 } });

describe('request kernel', () => {
  it('malformed JSON is 400; unknown body fields are ignored', async () => {
    const acct = await newAccount(app());
    const bad = await call(app(), '/api-keys', { key: acct.key, method: 'POST', rawBody: '{"label": ', headers: { 'Content-Type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 400, error_code: 'bad_request' });
    const extra = await call(app(), '/api-keys', { key: acct.key, body: { label: 'x', color: 'blue' } });
    expect(extra.status).toBe(201);
    expect(extra.body.apiKey.color).toBeUndefined();
  });

  it('unknown paths are 404 and unsupported methods 405, in the error shape', async () => {
    const acct = await newAccount(app());
    expect((await call(app(), '/nothing-here', { key: acct.key })).body).toMatchObject({ status: 404, error_code: 'not_found' });
    const res = await call(app(), '/me', { key: acct.key, method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('echoes a well-formed X-Request-Id and makes one otherwise', async () => {
    const acct = await newAccount(app());
    const res = await call(app(), '/me', { key: acct.key, headers: { 'X-Request-Id': 'req-12345678' } });
    expect(res.headers.get('x-request-id')).toBe('req-12345678');
    const made = await call(app(), '/me', { key: acct.key, headers: { 'X-Request-Id': 'bad id!' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an unexpected failure is a 500 server_error without internals', async () => {
    const acct = await newAccount(app());
    const res = await call(app(), '/probe/crash', { key: acct.key });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ ok: false, status: 500, error_code: 'server_error', error: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('postgres://');
  });

  it('the kill switch answers 423 KILL_SWITCH_ENGAGED on task endpoints only, and nothing else changes', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const as = { key: acct.key, as: u.email };
    expect((await call(app(), '/probe/task', { ...as, body: { title: 'a' } })).status).toBe(200);
    await setKillSwitch(app().database.db, acct.accountId, true);
    const frozen = await call(app(), '/probe/task', { ...as, body: { title: 'a' } });
    expect(frozen.status).toBe(423);
    expect(frozen.body.error_code).toBe('KILL_SWITCH_ENGAGED');
    expect((await call(app(), '/me', as)).status).toBe(200);
    await setKillSwitch(app().database.db, acct.accountId, false);
    expect((await call(app(), '/probe/task', { ...as, body: { title: 'a' } })).status).toBe(200);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After and X-RateLimit headers once the per-minute reads are used', async () => {
    const acct = await newAccount(app());
    for (let i = 0; i < 5; i++) expect((await call(app(), '/me', { key: acct.key })).status).toBe(200);
    const limited = await call(app(), '/me', { key: acct.key });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ ok: false, error: expect.any(String), retryAfter: expect.any(Number) });
    const now = Date.now() / 1000;
    expect(limited.body.retryAfter).toBeGreaterThan(now);
    expect(limited.body.retryAfter).toBeLessThanOrEqual(now + 61);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('5');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBe(limited.body.retryAfter);
    // Counted per path: another path still answers.
    expect((await call(app(), '/api-keys', { key: acct.key })).status).toBe(200);
    // And per account: another account is unaffected.
    const other = await newAccount(app());
    expect((await call(app(), '/me', { key: other.key })).status).toBe(200);
  });

  it('counts writes separately, and a per-account override replaces the default', async () => {
    const acct = await newAccount(app());
    for (let i = 0; i < 3; i++) expect((await call(app(), '/api-keys', { key: acct.key, body: { label: `k${i}` } })).status).toBe(201);
    expect((await call(app(), '/api-keys', { key: acct.key, body: { label: 'k4' } })).status).toBe(429);
    const keys = await call(app(), '/api-keys', { key: acct.key });
    expect(keys.body.total).toBe(4); // the refused write created nothing

    const roomy = await newAccount(app());
    await setRateLimits(app().database.db, roomy.accountId, { reads: 8, writes: null });
    for (let i = 0; i < 8; i++) expect((await call(app(), '/me', { key: roomy.key })).status).toBe(200);
    const limited = await call(app(), '/me', { key: roomy.key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('8');
  });

  it('limits calls without a credential per client IP and path (the SAML ACS, OAuth callbacks)', async () => {
    const post = () => fetch(`${app().baseUrl}/sso/saml/acs`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'SAMLResponse=x' });
    for (let i = 0; i < 3; i++) expect((await post()).status).not.toBe(429);
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect((await fetch(`${app().baseUrl}/sso/saml/metadata`)).status).not.toBe(429);
  });
});
