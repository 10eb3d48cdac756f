import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, newAccount, newUser } from '../helpers/client';
import { startTxtServer } from '../helpers/dns';
import { useTestServer } from '../helpers/server';

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

it('a domain is verified once its TXT record is published (real DNS queries on loopback), and only then', async () => {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Dns Co' } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const as = { key: acct.key, as: admin.email };
  const domain = `dns-${Date.now().toString(36)}.example`;
  const added = await call(app(), `/organizations/${org.id}/domains`, { ...as, body: { domain: domain.toUpperCase(), autoJoin: true } });
  expect(added.status).toBe(201);
  expect(added.body.domain).toMatchObject({ domain, verified: false, autoJoin: true, source: 'manual', txtRecordName: `_svc-verification.${domain}` });
  expect(added.body.domain.txtRecordValue).toMatch(/^svc-[0-9a-f]+$/);
  expect((await call(app(), `/organizations/${org.id}/domains`, { ...as, body: { domain } })).status).toBe(400);

  const verify = () => call(app(), `/organizations/${org.id}/domains/${added.body.domain.id}/verify`, { ...as, method: 'POST' });
  const early = await verify();
  expect(early.status).toBe(400);
  expect(early.body.error).toMatch(/TXT record/i);
  dns.publish(added.body.domain.txtRecordName, 'svc-not-the-value');
  expect((await verify()).status).toBe(400);
  dns.publish(added.body.domain.txtRecordName, added.body.domain.txtRecordValue);
  const ok = await verify();
  expect(ok.status).toBe(200);
  expect(ok.body.domain).toMatchObject({ verified: true });
  expect(ok.body.domain.verifiedAt).not.toBeNull();
  expect((await verify()).status).toBe(400);

  // autoJoin: someone provisioned at the verified domain joins the organization as a member.
  const joined = await call(app(), '/users/provision', { key: acct.key, body: { email: `newbie@${domain}` } });
  expect([200, 201]).toContain(joined.status);
  const person = await call(app(), `/users/${joined.body.user.id}`, { key: acct.key });
  expect(person.body.user).toMatchObject({ organization: org.id, organizationRole: 'member' });
});
