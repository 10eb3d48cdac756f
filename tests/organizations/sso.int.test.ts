import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
// A self-signed test IdP certificate (generated once with openssl; test-only).
const certificate = readFileSync(path.join(import.meta.dirname, '../fixtures/idp-cert.pem'), 'utf8');

it('PUT /sso merges each object, never returns the certificate, and shows non-admins only enabled, enforced, provider; DELETE clears it', async () => {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'SSO Co' } })).body.organization;
  const admin = await newUser(app(), acct);
  const member = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
  const url = `/organizations/${org.id}/sso`;
  const as = { key: acct.key, as: admin.email, method: 'PUT' };

  expect((await call(app(), url, { ...as, body: { enabled: true } })).status).toBe(400);
  expect((await call(app(), url, { ...as, body: { saml: { certificate: 'not a cert' } } })).status).toBe(400);
  const first = await call(app(), url, { ...as, body: { saml: { entryPoint: 'https://idp.example/sso', certificate, issuer: 'urn:idp' } } });
  expect(first.status).toBe(200);
  expect(JSON.stringify(first.body)).not.toContain('BEGIN CERTIFICATE');
  expect(first.body.sso).toMatchObject({ enabled: false, provider: 'saml_generic', saml: { entryPoint: 'https://idp.example/sso', issuer: 'urn:idp', hasCertificate: true, signatureAlgorithm: 'sha256', allowIdpInitiated: false, attributeMapping: { email: 'email' } }, memberSync: { autoProvision: true } });
  const second = await call(app(), url, { ...as, body: { enabled: true, enforced: true, saml: { groupRoleMapping: [{ group: 'Admins', role: 'admin' }], attributeMapping: { email: 'mail' } } } });
  expect(second.body.sso).toMatchObject({ enabled: true, enforced: true, saml: { entryPoint: 'https://idp.example/sso', hasCertificate: true, attributeMapping: { email: 'mail', firstName: 'firstName' }, groupRoleMapping: [{ group: 'Admins', role: 'admin' }] } });

  const seenByMember = await call(app(), `/organizations/${org.id}`, { key: acct.key, as: member.email });
  expect(seenByMember.body.organization.sso).toEqual({ enabled: true, enforced: true, provider: 'saml_generic' });
  const seenByAdmin = await call(app(), `/organizations/${org.id}`, { key: acct.key, as: admin.email });
  expect(seenByAdmin.body.organization.sso.saml.hasCertificate).toBe(true);
  expect(JSON.stringify(seenByAdmin.body)).not.toContain('BEGIN CERTIFICATE');
  expect((await call(app(), url, { key: acct.key, as: member.email, method: 'PUT', body: { enforced: false } })).status).toBe(403);

  const cleared = await call(app(), url, { key: acct.key, as: admin.email, method: 'DELETE' });
  expect(cleared.body).toEqual({ ok: true, sso: null });
  expect((await call(app(), `/organizations/${org.id}`, { key: acct.key })).body.organization.sso).toBeUndefined();
});
