import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { identifiers, users } from '@/db/schema';
import { call, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { samlOrganization, sessionUser } from '../sign-in/saml-setup';

const app = useTestServer();

describe('SAML signatures: the assertion must be signed, the Response around it need not be', () => {
  it('accepts an assertion signed inside an unsigned Response (Entra ID’s default) and signs the person in', async () => {
    const s = await samlOrganization(app());
    const email = `entra@${s.domain}`;
    const { id } = await s.start('/teams');
    const res = await s.post(s.response({ email, inResponseTo: id, signResponse: false }));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/teams');
    expect((await sessionUser(app(), res.headers['set-cookie']))?.sub).toBe((await s.userByEmail(email))!.id);
  });

  it.each([
    ['an unsigned Assertion inside a signed Response', { signAssertion: false }],
    ['an unsigned Assertion inside an unsigned Response', { signAssertion: false, signResponse: false }],
  ])('refuses %s', async (_name, opts) => {
    const s = await samlOrganization(app());
    const email = `unsigned@${s.domain}`;
    const { id } = await s.start();
    const res = await s.post(s.response({ email, inResponseTo: id, ...opts }));
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ error_code: 'sso_rejected' });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await s.userByEmail(email)).toBeNull();
  });
});

describe('IdP-initiated responses are tied to the configured IdP issuer', () => {
  it('refuses a signed assertion whose own Issuer is not the configured one, even when the Response names it', async () => {
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true } });
    const email = `issuer@${s.domain}`;
    const res = await s.post(s.response({ email, assertionIssuer: 'https://other-idp.example/metadata', signResponse: false }));
    expect(res.status).toBe(403);
    expect(res.json().error).toMatch(/issuer/);
    expect(await s.userByEmail(email)).toBeNull();
    expect((await s.post(s.response({ email, signResponse: false }))).status).toBe(303);
  });

  it('with no issuer configured (an empty one, as IdP metadata without entityID gives), nothing started at an IdP is accepted', async () => {
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true, issuer: '' } });
    const email = `noissuer@${s.domain}`;
    const res = await s.post(s.response({ email, issuer: '' }));
    expect(res.status).toBe(403);
    expect(res.json().error_code).toBe('sso_rejected');
    expect(await s.userByEmail(email)).toBeNull();
  });
});

describe('SAML identifies people by verified email only', () => {
  it('an address another user holds unverified never signs in as that user nor changes their role', async () => {
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true, groupRoleMapping: [{ group: 'admins', role: 'admin' }] } });
    const db = app().database.db;
    const squatter = await newUser(app(), s.acct);
    const victim = `ceo@${s.domain}`;
    // The state a squatter could reach before make-primary required a verified identifier.
    await db.insert(identifiers).values({ accountId: s.acct.accountId, userId: squatter.id, type: 'email', value: victim, verified: false });
    await db.update(users).set({ email: victim }).where(eq(users.id, squatter.id));

    const res = await s.post(s.response({ email: victim, attributes: { email: victim, groups: ['admins'] } }));
    expect(res.status).not.toBe(500);
    const session = await sessionUser(app(), res.headers['set-cookie']);
    expect(session?.sub ?? null).not.toBe(squatter.id);
    const [after] = await db.select().from(users).where(eq(users.id, squatter.id));
    expect(after).toMatchObject({ organizationId: null, organizationRole: 'member' });
  });

  it('the verified holder is found whatever their primary email is', async () => {
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true } });
    const person = await newUser(app(), s.acct);
    const work = `work@${s.domain}`;
    expect((await call(app(), '/identifiers', { key: s.acct.key, body: { userId: person.id, type: 'email', value: work, verified: true } })).status).toBe(201);
    const res = await s.post(s.response({ email: work }));
    expect(res.status).toBe(303);
    expect((await sessionUser(app(), res.headers['set-cookie']))?.sub).toBe(person.id);
  });

  it('refuses a person who belongs to another organization, and leaves them there', async () => {
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true, groupRoleMapping: [{ group: 'admins', role: 'admin' }] } });
    const email = `elsewhere@${s.domain}`;
    const other = (await call(app(), '/organizations', { key: s.acct.key, body: { name: 'Other' } })).body.organization;
    const person = (await call(app(), '/users/provision', { key: s.acct.key, body: { email } })).body.user;
    expect((await call(app(), `/users/${person.id}`, { key: s.acct.key, method: 'PUT', body: { organization: other.id } })).status).toBe(200);

    const res = await s.post(s.response({ email, attributes: { email, groups: ['admins'] } }));
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ error_code: 'sso_rejected' });
    expect(res.json().error).toMatch(/belongs to another organization/);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await s.userByEmail(email)).toMatchObject({ organizationId: other.id, organizationRole: 'member' });
  });
});

describe('returnTo and RelayState stay on the hosted app', () => {
  const outside = ['/\t/evil.test', '/\n/evil.test', '/\r\n/evil.test', '/\\evil.test', '/\\/evil.test', '//evil.test', 'https://evil.test/', 'javascript:alert(1)', '/\u0000/evil.test'];

  it.each(outside)('IdP-initiated RelayState %j lands on /', async (relay) => {
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true } });
    const res = await s.post(s.response({ email: `relay@${s.domain}` }), relay);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
  });

  it('SP-initiated returnTo is kept when it is a path here, and replaced by / otherwise', async () => {
    const s = await samlOrganization(app());
    for (const [returnTo, expected] of [
      ['/teams/t1?tab=members#top', '/teams/t1?tab=members#top'],
      ['/\t/evil.test', '/'],
      ['/..//evil.test', '/..//evil.test'],
    ]) {
      const { id } = await s.start(returnTo);
      const res = await s.post(s.response({ email: `back@${s.domain}`, inResponseTo: id }));
      expect(res.headers.location).toBe(expected);
    }
  });
});
