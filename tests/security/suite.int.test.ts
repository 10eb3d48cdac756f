import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '@/server/endpoints';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { call, newAccount, newUser, userKey, type Call } from '../helpers/client';
import { startTxtServer } from '../helpers/dns';
import { useTestServer } from '../helpers/server';
import { fixtures, type Made, type Method, type Owner } from './fixtures';
import { readBackPaths, snapshot } from './read-back';

/**
 * Generated for every endpoint in the registry: missing key, revoked key, suspended user and
 * unfinished onboarding; and for every endpoint with path parameters, proof that the owner
 * reaches a real resource (2xx) before another account (and, for a user's resource, another
 * user) is refused with 404. Without the proof a broken fixture would make every refusal
 * pass. Every refused write must also leave the resource and the lists above it, read back by
 * the owner, byte for byte as they were (read-back.ts). A new endpoint with path parameters must
 * add a fixture. Ids in queries and bodies have their own generated cases (references.int.test.ts).
 */
const app = useTestServer();
// Tenant prompt API (service keys) and SCIM (SCIM tokens) have their own security tests.
const secured = endpoints.filter((e) => e.auth !== 'none' && e.auth !== 'service' && e.auth !== 'scim');
const gets = secured.filter((e) => e.method === 'GET');

/** The URL for a resource; a parameter the fixture did not make is a broken fixture, never a stand-in id. */
function fill(template: string, made: Made) {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!made[name]) throw new Error(`fixture for ${template} made no ${name} (it made ${JSON.stringify(made)})`);
    return encodeURIComponent(made[name]);
  });
}
/** For refusals that come before any lookup (no key, revoked key, blocked user, onboarding): an id that names nothing. */
const nowhere = (template: string) => template.replace(/\{\w+\}/g, 'ffffffffffffffffffffffff');

let owner: Owner;
let stranger: { key: string; email: string; accountKey: string };
let outsider: { key: string; accountKey: string; email: string };
let rivalOrgKey: string;
let revokedKey: string;
let blocked: { key: string };
let fresh: { key: string };
let dns: Awaited<ReturnType<typeof startTxtServer>>;

beforeAll(async () => {
  // The missing and revoked keys below are failed authentications by design, hundreds from one address.
  Object.assign(app().kernel.rateLimits.defaults, { failedAuth: 1_000_000 });
  useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-security-files-'))));
  dns = await startTxtServer();
  process.env.DNS_SERVERS = dns.address;
  const account = await newAccount(app(), 'Owner account');
  const user = await newUser(app(), account);
  owner = { account, user, userKey: await userKey(app(), account, user.id), publishTxt: dns.publish };
  const other = await newUser(app(), account);
  stranger = { key: await userKey(app(), account, other.id), email: other.email, accountKey: account.key };
  const rival = (await call(app(), '/organizations', { key: account.key, body: { name: 'Rival org' } })).body.organization;
  const rivalAdmin = await newUser(app(), account);
  await call(app(), `/users/${rivalAdmin.id}`, { key: account.key, method: 'PUT', body: { organization: rival.id, organizationRole: 'admin' } });
  rivalOrgKey = (await call(app(), '/api-keys', { key: account.key, as: rivalAdmin.email, body: { label: 'rival org key' } })).body.apiKey.key;
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
afterAll(async () => {
  delete process.env.DNS_SERVERS;
  await dns?.close();
});

it('every endpoint with path parameters has a security fixture', () => {
  const missing = [...new Set(secured.filter((e) => e.path.includes('{') && !fixtures[e.path]).map((e) => e.path))];
  expect(missing).toEqual([]);
});

it('every fixture belongs to an endpoint, and refines only methods that endpoint has', () => {
  for (const [p, f] of Object.entries(fixtures)) {
    const methods = secured.filter((e) => e.path === p).map((e) => e.method);
    expect(methods.length, `${p} is not a secured endpoint`).toBeGreaterThan(0);
    for (const m of Object.keys(f.methods ?? {})) expect(methods, `${p} has no ${m}`).toContain(m);
  }
});

describe.each(secured.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', (_name, ep) => {
  const anyBody = ep.method === 'GET' ? undefined : {};

  it('refuses a missing key with 401 unauthorized', async () => {
    const res = await call(app(), nowhere(ep.path), { method: ep.method, key: null, body: anyBody });
    expect(res.status).toBe(401);
    expect(res.body.error_code).toBe('unauthorized');
  });

  it('refuses a revoked key with 401 {ok:false}', async () => {
    const res = await call(app(), nowhere(ep.path), { method: ep.method, key: revokedKey, body: anyBody });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false });
  });

  it('refuses a suspended user with 403 account_blocked', async () => {
    const res = await call(app(), nowhere(ep.path), { method: ep.method, key: blocked.key, body: anyBody });
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('account_blocked');
  });

  it(ep.onboardingExempt ? 'lets a user who has not finished setup through' : 'answers 428 onboarding_required to a user who has not finished setup', async () => {
    const res = await call(app(), nowhere(ep.path), { method: ep.method, key: fresh.key, body: anyBody });
    if (ep.onboardingExempt) expect(res.status).not.toBe(428);
    else {
      expect(res.status).toBe(428);
      expect(res.body.error_code).toBe('onboarding_required');
    }
  });

  if (!ep.path.includes('{')) return;
  const fixture = fixtures[ep.path];
  // A missing fixture fails the completeness test above; nothing here may stand in for it.
  if (!fixture) return;
  const spec = fixture.methods?.[ep.method as Method] ?? {};
  const create = spec.create ?? fixture.create;
  const by = spec.by ?? fixture.by ?? ((_m: Made, o: Owner) => ({ key: fixture.ownership === 'user' ? o.userKey : o.account.key }));
  const bodyFor = (made: Made) => (ep.method === 'GET' ? undefined : spec.body ? spec.body(made, owner) : ep.body ? {} : undefined);
  const others = { user: 'another account and another user get', organization: 'another account and another organization get', account: 'another account gets' }[fixture.ownership];

  it(`reaches the owner's resource (2xx), while ${others} 404`, async () => {
    const proofOf = await create(app(), owner);
    const proof = await call(app(), fill(ep.path, proofOf), { method: ep.method, ...by(proofOf, owner), body: bodyFor(proofOf) });
    expect(proof.status, `the owner's own request: ${JSON.stringify(proof.body)}`).toBeGreaterThanOrEqual(200);
    expect(proof.status, `the owner's own request: ${JSON.stringify(proof.body)}`).toBeLessThan(300);

    // A request that used the resource up gets a fresh one for the refusals.
    const target = spec.spends ? await create(app(), owner) : proofOf;
    const url = fill(ep.path, target);
    const reads = ep.method === 'GET' ? [] : readBackPaths(ep.path, gets, target);
    const before = await snapshot(app(), reads, by(target, owner));
    const refusals: Array<[string, Call, number]> = [
      // A user-only endpoint refuses a bare account key before looking at the resource.
      // One that needs a person refuses a caller who is not one (403) before looking at the resource.
      ['another account (account key)', { key: outsider.accountKey }, ep.needsPerson ? 403 : ep.auth === 'user' ? 401 : 404],
      // An account-only endpoint (webhooks) refuses anyone acting as a user before looking at the resource.
      ['another account (user key)', { key: outsider.key }, ep.auth === 'account' ? 403 : 404],
      ['another account (account key acting as its user)', { key: outsider.accountKey, as: outsider.email }, ep.auth === 'account' ? 403 : 404],
    ];
    if (ep.auth === 'account') refusals.push(['the owner’s own user key', { key: owner.userKey }, 403]);
    // Approvals need a person: even the owner's own account key, not acting as anyone, is refused.
    if (ep.needsPerson) refusals.push(['the owner’s account key without X-User-Email', { key: owner.account.key }, 403]);
    if (fixture.ownership === 'user') {
      refusals.push(['another user (user key)', { key: stranger.key }, 404], ['another user (account key acting as them)', { key: stranger.accountKey, as: stranger.email }, 404]);
    }
    if (fixture.ownership === 'organization') refusals.push(['another organization of the account (its key)', { key: rivalOrgKey }, 404]);
    for (const [who, cred, expected] of refusals) {
      const res = await call(app(), url, { method: ep.method, ...cred, body: bodyFor(target) });
      expect(res.status, `${who}: ${JSON.stringify(res.body)}`).toBe(expected);
    }
    // Nothing a refusal answered may have happened: the owner reads back exactly what was there.
    expect(await snapshot(app(), reads, by(target, owner)), `what the owner reads after the refused ${ep.method}s`).toEqual(before);
    if (spec.spends) {
      // A refusal must also have changed nothing: the resource is still there for its owner to use up.
      const after = await call(app(), url, { method: ep.method, ...by(target, owner), body: bodyFor(target) });
      expect(after.status, `the owner after the refusals: ${JSON.stringify(after.body)}`).toBeLessThan(300);
    }
  });
});
