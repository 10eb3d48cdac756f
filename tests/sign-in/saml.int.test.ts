import { generateKeyPairSync, verify, X509Certificate } from 'node:crypto';
import { spCredentials } from '@/server/hosted/sp-credentials';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { samlRequests } from '@/db/schema';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { IDP_CERT, IDP_ISSUER, inflateSamlMessage } from '../helpers/saml-idp';
import { samlOrganization, sessionUser } from './saml-setup';

const app = useTestServer();
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

describe('SAML sign-in (ACS)', () => {
  it('SP-initiated: a signed response answering our request signs the person in once, provisions them, and records the SP values', async () => {
    const s = await samlOrganization(app());
    const email = `ada@${s.domain}`;
    const { id, redirectUrl } = await s.start('/teams');
    expect(redirectUrl.startsWith('https://idp.test.example/sso?')).toBe(true);
    // The AuthnRequest is signed (redirect binding) with the key whose certificate the SP metadata publishes.
    const query = new URL(redirectUrl).search.slice(1);
    const signed = query.split('&').filter((p) => !p.startsWith('Signature=')).join('&');
    const signature = new URL(redirectUrl).searchParams.get('Signature')!;
    expect(new URL(redirectUrl).searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    const { cert } = await spCredentials(app().database.db);
    expect(verify('sha256', Buffer.from(signed), new X509Certificate(cert).publicKey, Buffer.from(signature, 'base64'))).toBe(true);
    const body = s.response({ email, inResponseTo: id, attributes: { email, firstName: 'Ada', lastName: 'Lovelace' } });
    const res = await s.post(body);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/teams');
    const session = await sessionUser(app(), res.headers['set-cookie']);
    const user = await s.userByEmail(email);
    expect(user).toMatchObject({ organizationId: s.org.id, firstName: 'Ada', lastName: 'Lovelace', organizationRole: 'member' });
    expect(session).toMatchObject({ sub: user!.id, method: 'saml' });
    expect(session!.cookie).toMatch(/^__Secure-next-auth\.session-token=.*HttpOnly.*SameSite=Lax.*Secure/);

    const replay = await s.post(body);
    expect(replay.status).toBe(403);
    expect(replay.json()).toMatchObject({ ok: false, error_code: 'sso_rejected' });
    expect(replay.headers['set-cookie']).toBeUndefined();

    const org = (await call(app(), `/organizations/${s.org.id}`, { key: s.acct.key })).body.organization;
    expect(org.sso.saml).toMatchObject({ spEntityId: s.audience, acsUrl: s.acsUrl, sloUrl: `https://${s.host}/api/sso/saml/slo` });
  });

  it('SP-initiated sign-in must complete within 10 minutes', async () => {
    const s = await samlOrganization(app());
    const { id } = await s.start();
    await app().database.db.update(samlRequests).set({ createdAt: minutesAgo(11) }).where(eq(samlRequests.id, id));
    const res = await s.post(s.response({ email: `late@${s.domain}`, inResponseTo: id }));
    expect(res.status).toBe(403);
    expect(await s.userByEmail(`late@${s.domain}`)).toBeNull();
  });

  it('IdP-initiated is refused unless allowIdpInitiated, and then each assertion is accepted once', async () => {
    const s = await samlOrganization(app());
    const email = `idp@${s.domain}`;
    const refused = await s.post(s.response({ email }));
    expect(refused.status).toBe(403);
    expect(refused.json().error).toMatch(/IdP is not allowed/);

    await call(app(), `/organizations/${s.org.id}/sso`, { key: s.acct.key, method: 'PUT', body: { saml: { allowIdpInitiated: true } } });
    const body = s.response({ email });
    const ok = await s.post(body, '/organizations');
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe('/organizations');
    expect((await sessionUser(app(), ok.headers['set-cookie']))?.sub).toBe((await s.userByEmail(email))!.id);
    const replay = await s.post(body);
    expect(replay.status).toBe(403);
    expect(replay.json().error).toMatch(/already used/);
    expect((await s.post(s.response({ email }), 'https://evil.example/')).headers.location).toBe('/');
  });

  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cases: Array<[string, (s: Awaited<ReturnType<typeof samlOrganization>>, id: string, email: string) => string, RegExp]> = [
    ['an unsigned response around an unsigned assertion', (s, id, email) => s.response({ email, inResponseTo: id, signResponse: false, signAssertion: false }), /Invalid signature/],
    ['an unsigned assertion in a signed response', (s, id, email) => s.response({ email, inResponseTo: id, signAssertion: false }), /Invalid signature/],
    ['a second unsigned assertion beside the signed one (signature wrapping)', (s, id, email) => s.response({ email, inResponseTo: id, wrapWith: `root@${s.domain}` }), /multiple assertions/],
    ['a wrong audience', (s, id, email) => s.response({ email, inResponseTo: id, audience: 'https://other.example/metadata' }), /audience mismatch/],
    ['a wrong recipient (another ACS URL)', (s, id, email) => s.response({ email, inResponseTo: id, recipient: 'https://other.example/api/sso/saml/acs' }), /assertion is addressed to another ACS URL/],
    ['a response sent to another ACS URL', (s, id, email) => s.response({ email, inResponseTo: id, destination: 'https://other.example/api/sso/saml/acs' }), /response is addressed to another ACS URL/],
    ['an expired assertion', (s, id, email) => s.response({ email, inResponseTo: id, notBefore: minutesAgo(30), notOnOrAfter: minutesAgo(20) }), /No valid subject confirmation|expired/],
    ['an email outside the verified domains', (s, id) => s.response({ email: 'mallory@outside.example', inResponseTo: id, attributes: { email: 'mallory@outside.example' } }), /verified domains/],
    [
      'a NameID with an XML comment inside it',
      (s, id) => s.response({ email: '', nameIdXml: `mallory@${s.domain}<!---->.outside.example`, inResponseTo: id, attributes: { firstName: 'M' } }),
      /XML comment/,
    ],
    ['a signature by another key', (s, id, email) => s.response({ email, inResponseTo: id, key: otherKey }), /Invalid signature/],
    ['an answer to a request that was never made', (s, _id, email) => s.response({ email, inResponseTo: '_made_up' }), /answers no sign-in request/],
  ];

  it.each(cases)('rejects %s with 403 sso_rejected and no session', async (_name, build, reason) => {
    const s = await samlOrganization(app());
    const { id } = await s.start();
    const email = `target@${s.domain}`;
    const res = await s.post(build(s, id, email));
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ ok: false, status: 403, error_code: 'sso_rejected' });
    expect(res.json().error).toMatch(reason);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await s.userByEmail(email)).toBeNull();
    const [{ n }] = (await app().database.db.execute(sql`select count(*)::int as n from users where email like ${'%' + s.domain + '%'}`)).rows as Array<{ n: number }>;
    expect(n).toBe(0);
  });

  it('maps attributes (NameID fallback), filters groups case-insensitively (any or all) and sets the role from the first matching group', async () => {
    const s = await samlOrganization(app(), {
      saml: {
        allowIdpInitiated: true,
        attributeMapping: { email: 'mail', firstName: 'givenName', groups: 'memberOf' },
        groupFilter: { enabled: true, allowedGroups: ['Staff', 'Contractors'] },
        groupRoleMapping: [
          { group: 'IT-Admins', role: 'admin' },
          { group: 'staff', role: 'member' },
        ],
      },
    });
    const email = `grace@${s.domain}`;
    const outsider = await s.post(s.response({ email, attributes: { mail: email, memberOf: ['Visitors'] } }));
    expect(outsider.status).toBe(403);
    expect(outsider.json().error).toMatch(/group/);

    const asAdmin = await s.post(s.response({ email: email.toUpperCase(), attributes: { givenName: 'Grace', memberOf: ['STAFF', 'it-admins'] } }));
    expect(asAdmin.status).toBe(303);
    expect(await s.userByEmail(email)).toMatchObject({ firstName: 'Grace', organizationRole: 'admin' });
    const demoted = await s.post(s.response({ email, attributes: { mail: email, memberOf: ['staff'] } }));
    expect(demoted.status).toBe(303);
    expect((await s.userByEmail(email))?.organizationRole).toBe('member');

    await call(app(), `/organizations/${s.org.id}/sso`, { key: s.acct.key, method: 'PUT', body: { saml: { groupFilter: { requireAll: true } } } });
    expect((await s.post(s.response({ email, attributes: { mail: email, memberOf: ['staff'] } }))).status).toBe(403);
    expect((await s.post(s.response({ email, attributes: { mail: email, memberOf: ['Staff', 'CONTRACTORS'] } }))).status).toBe(303);
  });

  it('memberSync.autoProvision false admits only provisioned people; inactive people are blocked', async () => {
    const s = await samlOrganization(app(), { memberSync: { autoProvision: false }, saml: { allowIdpInitiated: true } });
    const stranger = await s.post(s.response({ email: `new@${s.domain}` }));
    expect(stranger.status).toBe(403);
    expect(stranger.json().error).toMatch(/not been provisioned/);

    const email = `known@${s.domain}`;
    const added = await call(app(), `/organizations/${s.org.id}/members`, { key: s.acct.key, as: s.admin.email, body: { email } });
    expect(added.status).toBe(201);
    expect((await s.post(s.response({ email }))).status).toBe(303);
    await call(app(), `/users/${added.body.member.id}`, { key: s.acct.key, method: 'PUT', body: { status: 'inactive' } });
    const blocked = await s.post(s.response({ email }));
    expect(blocked.status).toBe(403);
    expect(blocked.json().error_code).toBe('account_blocked');
  });

  it('refuses a malformed post with 400 and an unknown hosted domain with 404', async () => {
    const s = await samlOrganization(app());
    const res = await s.post('bm90IHhtbA==');
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, status: 400 });
    expect((await s.post('A'.repeat(600 * 1024))).json().error).toMatch(/too large/);
    const withDtd = Buffer.from(Buffer.from(s.response({ email: `x@${s.domain}` }), 'base64').toString('utf8').replace('<samlp:Response', '<!DOCTYPE r [<!ENTITY a "aaaa">]><samlp:Response')).toString('base64');
    const dtd = await s.post(withDtd);
    expect(dtd.status).toBe(403);
    expect(dtd.json().error).toMatch(/DTD/);
  });
});

describe('IdP metadata import', () => {
  it('PUT /sso accepts the IdP metadata XML instead of entryPoint + certificate, and sign-in then verifies against its certificate', async () => {
    const s = await samlOrganization(app(), { enabled: false });
    const url = `/organizations/${s.org.id}/sso`;
    await call(app(), url, { key: s.acct.key, method: 'DELETE' });
    const der = IDP_CERT.replace(/-----[A-Z ]+-----|\s/g, '');
    const metadataXml = `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${IDP_ISSUER}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.test.example/logout"/><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.test.example/post"/><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.test.example/redirect"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
    expect((await call(app(), url, { key: s.acct.key, method: 'PUT', body: { saml: { metadataXml: '<nope' } } })).status).toBe(400);
    const put = await call(app(), url, { key: s.acct.key, method: 'PUT', body: { enabled: true, saml: { metadataXml, allowIdpInitiated: true } } });
    expect(put.status).toBe(200);
    expect(put.body.sso).toMatchObject({ enabled: true, saml: { entryPoint: 'https://idp.test.example/redirect', logoutUrl: 'https://idp.test.example/logout', issuer: IDP_ISSUER, hasCertificate: true } });
    expect(JSON.stringify(put.body)).not.toContain(der.slice(0, 40));
    const res = await s.post(s.response({ email: `meta@${s.domain}` }));
    expect(res.status).toBe(303);
  });
});

describe('SAML state sweep', () => {
  it('drops expired replay records and requests older than 10 minutes, and keeps live ones', async () => {
    const { sweepSamlState, acceptOnce } = await import('@/server/sign-in/saml-store');
    const { samlAssertionsSeen } = await import('@/db/schema');
    const db = app().database.db;
    const s = await samlOrganization(app());
    const stale = await s.start();
    const fresh = await s.start();
    await db.update(samlRequests).set({ createdAt: minutesAgo(11) }).where(eq(samlRequests.id, stale.id));
    await acceptOnce(db, s.org.id, '_old', minutesAgo(1));
    await acceptOnce(db, s.org.id, '_live', new Date(Date.now() + 60_000));
    await sweepSamlState(db);
    const requests = (await db.select().from(samlRequests).where(eq(samlRequests.organizationId, s.org.id))).map((r) => r.id);
    expect(requests).toEqual([fresh.id]);
    const seen = (await db.select().from(samlAssertionsSeen).where(eq(samlAssertionsSeen.organizationId, s.org.id))).map((r) => r.assertionId);
    expect(seen).toEqual(['_live']);
    expect(await acceptOnce(db, s.org.id, '_live', new Date(Date.now() + 60_000))).toBe(false);
  });
});

describe('single logout', () => {
  it('a signed IdP LogoutRequest ends the session and is answered with a LogoutResponse; a same-origin POST signs out locally', async () => {
    const { hosted } = await import('../helpers/hosted');
    const { sign } = await import('../helpers/saml-idp');
    const s = await samlOrganization(app());
    const slo = `https://${s.host}/api/sso/saml/slo`;
    const plain = await hosted(`${app().baseUrl}/sso/saml/slo`, { host: s.host, method: 'POST', form: {}, headers: { Origin: `https://${s.host}` } });
    expect(plain.status).toBe(303);
    expect(plain.headers.location).toBe('/sign-in');
    expect(plain.headers['set-cookie']?.[0]).toMatch(/^__Secure-next-auth\.session-token=;.*Max-Age=0/);

    const request = (signed: boolean) => {
      const xml =
        `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_lr${Date.now()}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${slo}">` +
        `<saml:Issuer>${IDP_ISSUER}</saml:Issuer><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">ada@${s.domain}</saml:NameID><samlp:SessionIndex>_s1</samlp:SessionIndex></samlp:LogoutRequest>`;
      const out = signed ? sign(xml, `/*[local-name(.)='LogoutRequest']`, `/*[local-name(.)='LogoutRequest']/*[local-name(.)='Issuer']`) : xml;
      return Buffer.from(out).toString('base64');
    };
    const answered = await hosted(`${app().baseUrl}/sso/saml/slo`, { host: s.host, form: { SAMLRequest: request(true), RelayState: 'r1' } });
    expect(answered.status).toBe(303);
    expect(answered.headers.location).toMatch(/^https:\/\/idp\.test\.example\/sso\?SAMLResponse=.+RelayState=r1/);
    expect(answered.headers['set-cookie']?.[0]).toMatch(/Max-Age=0/);

    const forged = await hosted(`${app().baseUrl}/sso/saml/slo`, { host: s.host, form: { SAMLRequest: request(false) } });
    expect(forged.status).toBe(303);
    expect(forged.headers.location).toBe('/sign-in');
  });
});

describe('SP-initiated single logout', () => {
  it('signing out of a SAML session sends a signed LogoutRequest naming it to the IdP, and its LogoutResponse returns the browser to sign-in', async () => {
    const { hosted } = await import('../helpers/hosted');
    const { sign } = await import('../helpers/saml-idp');
    const s = await samlOrganization(app(), { saml: { logoutUrl: 'https://idp.test.example/slo' } });
    const email = `leaver@${s.domain}`;
    const { id } = await s.start();
    const signedIn = await s.post(s.response({ email, inResponseTo: id }));
    const cookie = (await sessionUser(app(), signedIn.headers['set-cookie']))!.cookie.split(';')[0];

    const out = await hosted(`${app().baseUrl}/sso/saml/slo`, { host: s.host, method: 'POST', form: {}, headers: { Cookie: cookie, Origin: `https://${s.host}` } });
    expect(out.status).toBe(303);
    expect(out.headers['set-cookie']?.[0]).toMatch(/Max-Age=0/);
    const location = new URL(out.headers.location!);
    expect(location.origin + location.pathname).toBe('https://idp.test.example/slo');
    expect(location.searchParams.get('Signature')).toBeTruthy();
    const request = inflateSamlMessage(location.searchParams.get('SAMLRequest')!);
    expect(request).toContain(`>${email}</`);
    expect(request).toMatch(/SessionIndex/);
    const requestId = /\sID="([^"]+)"/.exec(request)![1];

    expect(requestId).toMatch(/^_/);
    const back = await hosted(`${app().baseUrl}/sso/saml/slo?SAMLResponse=anything`, { host: s.host });
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe('/sign-in');

    // Without a SAML session, signing out stays local.
    const local = await hosted(`${app().baseUrl}/sso/saml/slo`, { host: s.host, method: 'POST', form: {}, headers: { Origin: `https://${s.host}` } });
    expect(local.headers.location).toBe('/sign-in');
  });
});

describe('certificate rotation', () => {
  it('accepts responses signed by any of the certificates stored (current and next), and refuses once the old one is removed', async () => {
    const { generate } = await import('selfsigned');
    const next = await generate([{ name: 'commonName', value: 'Next IdP key' }], { keySize: 2048, algorithm: 'sha256' });
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true } });
    const url = `/organizations/${s.org.id}/sso`;
    expect((await call(app(), url, { key: s.acct.key, method: 'PUT', body: { saml: { certificate: `${IDP_CERT}\n${next.cert}` } } })).status).toBe(200);
    expect((await s.post(s.response({ email: `old@${s.domain}` }))).status).toBe(303);
    expect((await s.post(s.response({ email: `new@${s.domain}`, key: next.private, cert: next.cert }))).status).toBe(303);
    expect((await call(app(), url, { key: s.acct.key, method: 'PUT', body: { saml: { certificate: next.cert } } })).status).toBe(200);
    expect((await s.post(s.response({ email: `old2@${s.domain}` }))).status).toBe(403);
    expect((await call(app(), url, { key: s.acct.key, method: 'PUT', body: { saml: { certificate: `${IDP_CERT}\n-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----` } } })).status).toBe(400);
  });
});
