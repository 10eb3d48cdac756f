import { encode } from 'next-auth/jwt';
import { describe, expect, it } from 'vitest';
import { sessionSecret } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { call } from '../helpers/client';
import { hosted } from '../helpers/hosted';
import { IDP_ISSUER, sign } from '../helpers/saml-idp';
import { useTestServer } from '../helpers/server';
import { samlOrganization, sessionUser } from '../sign-in/saml-setup';

const app = useTestServer();
type Org = Awaited<ReturnType<typeof samlOrganization>>;

/** Who the hosted app sees for this cookie (null: signed out). */
async function me(host: string, cookie: string) {
  const headers = new Headers({ host, cookie });
  return appRouter.createCaller(await portalContext(app().database.db, headers)).auth.me();
}

/** Signs `email` in through the IdP (IdP-initiated) and returns the session cookie as a browser would send it. */
async function signIn(s: Org, email: string, groups: string[] = []) {
  const res = await s.post(s.response({ email, attributes: { email, groups } }));
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.body}`);
  return (await sessionUser(app(), res.headers['set-cookie']))!.cookie.split(';')[0];
}

const ssoOrg = () =>
  samlOrganization(app(), {
    saml: {
      allowIdpInitiated: true,
      groupRoleMapping: [
        { group: 'admins', role: 'admin' },
        { group: 'staff', role: 'member' },
      ],
    },
  });
const slo = (s: Org, opts: { method?: string; query?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) =>
  hosted(`${app().baseUrl}/sso/saml/slo${opts.query ?? ''}`, { host: s.host, method: opts.method, form: opts.form, headers: opts.headers });
const cleared = (res: { headers: { 'set-cookie'?: string[] } }) => (res.headers['set-cookie'] ?? []).some((c) => /next-auth\.session-token=;.*Max-Age=0/.test(c));

describe('signing out takes a same-origin POST or the IdP’s signed request', () => {
  it('a cross-site link or form to /sso/saml/slo signs nobody out; a same-origin POST does', async () => {
    const s = await ssoOrg();
    const cookie = await signIn(s, `ada@${s.domain}`);

    const link = await slo(s, { headers: { Cookie: cookie } });
    expect(link.status).toBe(303);
    expect(cleared(link)).toBe(false);
    const form = await slo(s, { method: 'POST', form: {}, headers: { Cookie: cookie, Origin: 'https://evil.example' } });
    expect(form.status).toBe(303);
    expect(cleared(form)).toBe(false);
    const anonymous = await slo(s, { method: 'POST', form: {}, headers: { Cookie: cookie } });
    expect(cleared(anonymous)).toBe(false);
    const crossSite = await slo(s, { method: 'POST', form: {}, headers: { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' } });
    expect(cleared(crossSite)).toBe(false);
    const fakeAnswer = await slo(s, { query: '?SAMLResponse=anything', headers: { Cookie: cookie } });
    expect(fakeAnswer.headers.location).toBe('/sign-in');
    expect(cleared(fakeAnswer)).toBe(false);
    expect(await me(s.host, cookie)).toMatchObject({ user: { email: `ada@${s.domain}` } });

    const out = await slo(s, { method: 'POST', form: {}, headers: { Cookie: cookie, Origin: `https://${s.host}` } });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/sign-in');
    expect(cleared(out)).toBe(true);
    const fetchOnly = await slo(s, { method: 'POST', form: {}, headers: { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' } });
    expect(cleared(fetchOnly)).toBe(true);
  });

  it('an IdP LogoutRequest ends the session only when it is signed and names this browser’s session', async () => {
    const s = await ssoOrg();
    const email = `grace@${s.domain}`;
    const cookie = await signIn(s, email);
    const request = (nameId: string, signed = true) => {
      const xml =
        `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_lr${Math.random().toString(36).slice(2)}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="https://${s.host}/api/sso/saml/slo">` +
        `<saml:Issuer>${IDP_ISSUER}</saml:Issuer><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${nameId}</saml:NameID></samlp:LogoutRequest>`;
      return Buffer.from(signed ? sign(xml, `/*[local-name(.)='LogoutRequest']`, `/*[local-name(.)='LogoutRequest']/*[local-name(.)='Issuer']`) : xml).toString('base64');
    };
    const forged = await slo(s, { method: 'POST', form: { SAMLRequest: request(email, false) }, headers: { Cookie: cookie } });
    expect(forged.headers.location).toBe('/sign-in');
    expect(cleared(forged)).toBe(false);
    const someoneElse = await slo(s, { method: 'POST', form: { SAMLRequest: request(`other@${s.domain}`) }, headers: { Cookie: cookie } });
    expect(someoneElse.headers.location).toMatch(/^https:\/\/idp\.test\.example\/sso\?SAMLResponse=/);
    expect(cleared(someoneElse)).toBe(false);
    expect(await me(s.host, cookie)).not.toBeNull();

    const mine = await slo(s, { method: 'POST', form: { SAMLRequest: request(email) }, headers: { Cookie: cookie } });
    expect(mine.headers.location).toMatch(/^https:\/\/idp\.test\.example\/sso\?SAMLResponse=/);
    expect(cleared(mine)).toBe(true);
    // Sent cross-site by the IdP, the POST may arrive without the Lax cookie: the session is still ended.
    const cookieless = await slo(s, { method: 'POST', form: { SAMLRequest: request(email) } });
    expect(cleared(cookieless)).toBe(true);
  });
});

describe('sessions end when the user loses access (session version)', () => {
  it('blocking ends every session for good: reactivating does not bring it back, signing in again does', async () => {
    const s = await ssoOrg();
    const email = `blocked@${s.domain}`;
    const cookie = await signIn(s, email);
    const user = (await s.userByEmail(email))!;
    expect((await call(app(), `/users/${user.id}`, { key: s.acct.key, method: 'PUT', body: { status: 'inactive' } })).status).toBe(200);
    expect((await call(app(), `/users/${user.id}`, { key: s.acct.key, method: 'PUT', body: { status: 'active' } })).status).toBe(200);
    expect(await me(s.host, cookie)).toBeNull();
    expect(await me(s.host, await signIn(s, email))).toMatchObject({ user: { id: user.id } });
  });

  it('an organization admin made member loses the session; a promotion keeps it', async () => {
    const s = await ssoOrg();
    const email = `admin@${s.domain}`;
    const cookie = await signIn(s, email);
    const user = (await s.userByEmail(email))!;
    expect((await call(app(), `/users/${user.id}`, { key: s.acct.key, method: 'PUT', body: { organizationRole: 'admin' } })).status).toBe(200);
    expect(await me(s.host, cookie)).toMatchObject({ organization: { role: 'admin' } });
    expect((await call(app(), `/users/${user.id}`, { key: s.acct.key, method: 'PUT', body: { organizationRole: 'member' } })).status).toBe(200);
    expect(await me(s.host, cookie)).toBeNull();
  });

  it('the groupRoleMapping demotion at a later sign-in ends the earlier admin session, not the new one', async () => {
    const s = await ssoOrg();
    const email = `mapped@${s.domain}`;
    const asAdmin = await signIn(s, email, ['admins']);
    expect(await me(s.host, asAdmin)).toMatchObject({ organization: { role: 'admin' } });
    const asMember = await signIn(s, email, ['staff']);
    expect(await me(s.host, asAdmin)).toBeNull();
    expect(await me(s.host, asMember)).toMatchObject({ organization: { role: 'member' } });
  });

  it('leaving the organization ends the session', async () => {
    const s = await ssoOrg();
    const email = `leaver@${s.domain}`;
    const cookie = await signIn(s, email);
    const user = (await s.userByEmail(email))!;
    expect((await call(app(), `/organizations/${s.org.id}/members/${user.id}`, { key: s.acct.key, method: 'DELETE' })).status).toBe(200);
    expect(await me(s.host, cookie)).toBeNull();
  });

  it('a team admin made member loses the session', async () => {
    const s = await ssoOrg();
    const email = `lead@${s.domain}`;
    await signIn(s, email);
    const user = (await s.userByEmail(email))!;
    const team = (await call(app(), '/teams', { key: s.acct.key, as: s.admin.email, body: { name: 'Squad' } })).body.team;
    const added = await call(app(), `/teams/${team.id}/members`, { key: s.acct.key, body: { userId: user.id, role: 'admin' } });
    expect(added.status).toBe(201);
    const cookie = await signIn(s, email);
    expect(await me(s.host, cookie)).toMatchObject({ teams: expect.arrayContaining([expect.objectContaining({ id: team.id, role: 'admin' })]) });
    expect((await call(app(), `/teams/${team.id}/members/${added.body.member.id}`, { key: s.acct.key, method: 'PUT', body: { role: 'member' } })).status).toBe(200);
    expect(await me(s.host, cookie)).toBeNull();
  });

  it('deprovisioning from a team ends the session of a user who stays in the account', async () => {
    const s = await ssoOrg();
    const email = `deprov@${s.domain}`;
    await signIn(s, email);
    const user = (await s.userByEmail(email))!;
    const team = (await call(app(), '/teams', { key: s.acct.key, as: s.admin.email, body: { name: 'Short-lived' } })).body.team;
    expect((await call(app(), `/teams/${team.id}/members`, { key: s.acct.key, body: { userId: user.id } })).status).toBe(201);
    const cookie = await signIn(s, email);
    expect(await me(s.host, cookie)).not.toBeNull();
    const res = await call(app(), '/users/deprovision', { key: s.acct.key, body: { email, teamId: team.id } });
    expect(res.body).toMatchObject({ deleted: true, userDeleted: false });
    expect(await me(s.host, cookie)).toBeNull();
  });

  it('enforcing SSO ends the sessions of the organization’s members, and only theirs', async () => {
    const s = await ssoOrg();
    const email = `member@${s.domain}`;
    const cookie = await signIn(s, email);
    const other = await ssoOrg();
    const outsider = await signIn(other, `outsider@${other.domain}`);
    expect((await call(app(), `/organizations/${s.org.id}/sso`, { key: s.acct.key, method: 'PUT', body: { enforced: true } })).status).toBe(200);
    expect(await me(s.host, cookie)).toBeNull();
    expect(await me(other.host, outsider)).not.toBeNull();
    expect(await me(s.host, await signIn(s, email))).toMatchObject({ user: { email } });
  });

  it('a session cookie without a session version (minted before versions existed) is no session', async () => {
    const s = await ssoOrg();
    const email = `legacy@${s.domain}`;
    await signIn(s, email);
    const user = (await s.userByEmail(email))!;
    const token = await encode({ token: { sub: user.id, email, name: null, accountId: s.acct.accountId, method: 'saml' }, secret: await sessionSecret(app().database.db) });
    expect(await me(s.host, `__Secure-next-auth.session-token=${token}`)).toBeNull();
  });
});
