import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationDomains } from '@/db/schema';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { startTxtServer } from '../helpers/dns';
import { useTestServer } from '../helpers/server';

/**
 * Issue 12, item 13: a domain claim that was never verified must not lock the domain for the
 * whole account, a verified claim wins, and an organization can remove its claims.
 */
const app = useTestServer();
let dns: Awaited<ReturnType<typeof startTxtServer>>;
beforeAll(async () => {
  dns = await startTxtServer();
  process.env.DNS_SERVERS = dns.address;
});
afterAll(async () => {
  delete process.env.DNS_SERVERS;
  await dns.close();
});

let n = 0;
const freshDomain = () => `claim${++n}-${Date.now().toString(36)}.example`;

/** An organization with its admin (acting through a user key). */
async function organization(acct: AccountFixture, name: string) {
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const key = await userKey(app(), acct, admin.id);
  const domains = (k = key) => call(app(), `/organizations/${org.id}/domains`, { key: k });
  const claim = (domain: string, k = key) => call(app(), `/organizations/${org.id}/domains`, { key: k, body: { domain, autoJoin: true } });
  const verify = (domainId: string, k = key) => call(app(), `/organizations/${org.id}/domains/${domainId}/verify`, { key: k, method: 'POST' });
  const remove = (domainId: string, k = key) => call(app(), `/organizations/${org.id}/domains/${domainId}`, { key: k, method: 'DELETE' });
  return { org, admin, key, domains, claim, verify, remove };
}

const publish = (d: { txtRecordName: string; txtRecordValue: string }) => dns.publish(d.txtRecordName, d.txtRecordValue);

describe('competing claims', () => {
  it('an unverified claim does not lock the domain; the first to verify keeps it and the other claims are removed', async () => {
    const acct = await newAccount(app());
    const squatter = await organization(acct, 'Squatter');
    const owner = await organization(acct, 'Real owner');
    const domain = freshDomain();
    const squat = await squatter.claim(domain);
    expect(squat.status).toBe(201);

    const real = await owner.claim(domain);
    expect(real.status, JSON.stringify(real.body)).toBe(201);
    expect(real.body.domain.txtRecordValue).not.toBe(squat.body.domain.txtRecordValue);
    publish(real.body.domain);
    const verified = await owner.verify(real.body.domain.id);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.domain).toMatchObject({ domain, verified: true });

    // The squatter's claim can never verify now: it is gone, and the domain cannot be claimed again.
    expect((await squatter.domains()).body.domains).toEqual([]);
    expect((await squatter.verify(squat.body.domain.id)).status).toBe(404);
    const again = await squatter.claim(domain);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatch(/domain/);
    // autoJoin follows the verified claim.
    const joined = await call(app(), '/users/provision', { key: acct.key, body: { email: `someone@${domain}` } });
    expect((await call(app(), `/users/${joined.body.user.id}`, { key: acct.key })).body.user.organization).toBe(owner.org.id);
  });

  it('publishing the record for a claim another organization verified first does not take it over', async () => {
    const acct = await newAccount(app());
    const first = await organization(acct, 'First');
    const second = await organization(acct, 'Second');
    const domain = freshDomain();
    const a = (await first.claim(domain)).body.domain;
    const b = (await second.claim(domain)).body.domain;
    publish(a);
    publish(b);
    const results = await Promise.all([first.verify(a.id), second.verify(b.id)]);
    const statuses = results.map((r) => r.status).sort();
    // Exactly one wins; the other is refused (or finds its claim already removed), never a 500.
    expect(statuses[0], JSON.stringify(results.map((r) => r.body))).toBe(200);
    expect([400, 404]).toContain(statuses[1]);
    const holders = [(await first.domains()).body.domains, (await second.domains()).body.domains].flat();
    expect(holders).toEqual([expect.objectContaining({ domain, verified: true })]);
  });
});

describe('DELETE /organizations/{orgId}/domains/{domainId}', () => {
  it('the organization admin removes a claim, verified or not; the domain is then free for another organization', async () => {
    const acct = await newAccount(app());
    const holder = await organization(acct, 'Holder');
    const next = await organization(acct, 'Next');
    const domain = freshDomain();
    const d = (await holder.claim(domain)).body.domain;
    publish(d);
    expect((await holder.verify(d.id)).status).toBe(200);
    expect((await next.claim(domain)).status).toBe(400);

    const removed = await holder.remove(d.id);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toMatchObject({ ok: true, domain: { id: d.id, deleted: true } });
    expect((await holder.domains()).body.domains).toEqual([]);
    expect((await holder.remove(d.id)).status).toBe(404);
    // autoJoin ended with the claim.
    const joined = await call(app(), '/users/provision', { key: acct.key, body: { email: `later@${domain}` } });
    expect((await call(app(), `/users/${joined.body.user.id}`, { key: acct.key })).body.user.organization).toBeNull();

    const claimed = await next.claim(domain);
    expect(claimed.status).toBe(201);
    // An unverified claim goes too, and the account key may remove it.
    expect((await next.remove(claimed.body.domain.id, acct.key)).status).toBe(200);
    expect((await next.domains()).body.domains).toEqual([]);
  });

  it('only the organization’s admins, its key or the account: members 403, another organization 403/404, another account 404', async () => {
    const acct = await newAccount(app());
    const holder = await organization(acct, 'Holder');
    const d = (await holder.claim(freshDomain())).body.domain;
    const member = await newUser(app(), acct);
    await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { organization: holder.org.id, organizationRole: 'member' } });
    const other = await organization(acct, 'Other');
    const otherOrgKey = (await call(app(), '/api-keys', { key: acct.key, as: other.admin.email, body: { label: 'org key' } })).body.apiKey.key;
    const elsewhere = await newAccount(app(), 'Elsewhere');

    expect((await holder.remove(d.id, await userKey(app(), acct, member.id))).status).toBe(403);
    expect((await holder.remove(d.id, other.key)).status).toBe(403);
    expect((await holder.remove(d.id, otherOrgKey)).status).toBe(404);
    expect((await holder.remove(d.id, elsewhere.key)).status).toBe(404);
    // The other organization's admin cannot reach it through their own organization's path either.
    expect((await call(app(), `/organizations/${other.org.id}/domains/${d.id}`, { key: other.key, method: 'DELETE' })).status).toBe(404);
    expect((await holder.domains()).body.domains.map((x: { id: string }) => x.id)).toEqual([d.id]);

    const holderKey = (await call(app(), '/api-keys', { key: acct.key, as: holder.admin.email, body: { label: 'org key' } })).body.apiKey.key;
    expect((await holder.remove(d.id, holderKey)).status).toBe(200);
  });

  it('a domain added by the SSO configuration cannot be removed directly: 400, still listed', async () => {
    const acct = await newAccount(app());
    const holder = await organization(acct, 'SSO');
    const domain = freshDomain();
    // Nothing in the API creates SSO domains yet; the row stands for one the SSO configuration added.
    const [row] = await app()
      .database.db.insert(organizationDomains)
      .values({ accountId: acct.accountId, organizationId: holder.org.id, domain, source: 'sso', verified: true, verifiedAt: new Date(), txtRecordValue: 'svc-sso' })
      .returning();
    const res = await holder.remove(row.id);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/SSO/);
    expect((await holder.remove(row.id, acct.key)).status).toBe(400);
    expect((await holder.domains()).body.domains).toEqual([expect.objectContaining({ id: row.id, source: 'sso' })]);
  });
});
