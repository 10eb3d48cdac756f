import { TRPCError } from '@trpc/server';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '@/server/http/errors';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { call, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { samlOrganization, sessionUser } from './saml-setup';

const app = useTestServer();

async function caller(host: string, cookie?: string) {
  const headers = new Headers({ host, ...(cookie ? { cookie: cookie.split(';')[0] } : {}) });
  return appRouter.createCaller(await portalContext(app().database.db, headers));
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (e instanceof TRPCError && e.cause instanceof AppError) return `${e.code}:${e.cause.code}`;
    if (e instanceof AppError) return `app:${e.code}`;
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
};

describe('hosted app sign-in and routers', () => {
  it('auth.start sends SSO domains to the IdP and others to the email link; enforced SSO refuses members’ links with sso_required', async () => {
    const s = await samlOrganization(app());
    const anon = await caller(s.host);
    const sso = await anon.auth.start({ email: `Someone@${s.domain}`, returnTo: '/teams' });
    expect(sso).toMatchObject({ method: 'saml' });
    expect((sso as { redirectUrl: string }).redirectUrl).toMatch(/^https:\/\/idp\.test\.example\/sso\?SAMLRequest=/);
    expect(await anon.auth.start({ email: 'stranger@elsewhere.example' })).toEqual({ method: 'email' });
    expect(await anon.auth.start({ email: s.admin.email })).toEqual({ method: 'email' });
    expect(await codeOf(anon.auth.start({ email: 'not an email' }))).toBe('BAD_REQUEST');

    await call(app(), `/organizations/${s.org.id}/sso`, { key: s.acct.key, method: 'PUT', body: { enforced: true } });
    expect(await codeOf(anon.auth.start({ email: s.admin.email }))).toBe('FORBIDDEN:sso_required');
    expect(await anon.auth.start({ email: `someone@${s.domain}` })).toMatchObject({ method: 'saml' });
    expect(await anon.auth.start({ email: 'stranger@elsewhere.example' })).toEqual({ method: 'email' });
  });

  it('a SAML session acts as its user with user rules: the admin from groupRoleMapping manages SSO, a member is refused', async () => {
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true, groupRoleMapping: [{ group: 'admins', role: 'admin' }] } });
    const admin = await s.post(s.response({ email: `boss@${s.domain}`, attributes: { email: `boss@${s.domain}`, groups: ['Admins'] } }));
    const member = await s.post(s.response({ email: `staff@${s.domain}` }));
    const asAdmin = await caller(s.host, (await sessionUser(app(), admin.headers['set-cookie']))!.cookie);
    const asMember = await caller(s.host, (await sessionUser(app(), member.headers['set-cookie']))!.cookie);

    expect(await asAdmin.auth.me()).toMatchObject({ user: { email: `boss@${s.domain}` }, organization: { id: s.org.id, role: 'admin' } });
    const settings = await asAdmin.organizations.sso({ orgId: s.org.id });
    expect(settings.sp).toEqual({ entityId: s.audience, acsUrl: s.acsUrl, sloUrl: `https://${s.host}/api/sso/saml/slo` });
    expect(JSON.stringify(settings)).not.toContain('BEGIN CERTIFICATE');
    expect(await codeOf(asMember.organizations.putSso({ orgId: s.org.id, sso: { enforced: true } }))).toBe('FORBIDDEN:forbidden');
    expect(await codeOf(asMember.organizations.domains({ orgId: s.org.id }))).toBe('FORBIDDEN:forbidden');
    const minted = await asAdmin.organizations.mintScimToken({ orgId: s.org.id });
    expect(minted.endpoint).toBe(`https://${s.host}/api/scim/v2`);

    // Pages ask the services what the session may do instead of re-deriving it from roles.
    expect(await asAdmin.organizations.permissions({ orgId: s.org.id })).toEqual({ canAdmin: true });
    expect(await asMember.organizations.permissions({ orgId: s.org.id })).toEqual({ canAdmin: false });
    const adminTeam = (await asAdmin.auth.me())!.teams[0];
    const memberTeam = (await asMember.auth.me())!.teams[0];
    expect(await asMember.teams.permissions({ teamId: memberTeam.id })).toEqual({ canAdmin: true, isOwner: true });
    expect(await asAdmin.teams.permissions({ teamId: memberTeam.id })).toEqual({ canAdmin: true, isOwner: false });
    expect(await codeOf(asMember.teams.permissions({ teamId: adminTeam.id }))).toBe('NOT_FOUND:not_found');

    // setRole is PATCH /users/{userId}'s rule: a member changes no one, and the user must be in the organization named.
    const staff = await s.userByEmail(`staff@${s.domain}`);
    const boss = await s.userByEmail(`boss@${s.domain}`);
    expect(await codeOf(asMember.organizations.setRole({ orgId: s.org.id, userId: boss!.id, role: 'member' }))).toBe('NOT_FOUND:not_found');
    const elsewhere = await samlOrganization(app());
    expect(await codeOf(asAdmin.organizations.setRole({ orgId: elsewhere.org.id, userId: staff!.id, role: 'admin' }))).toBe('NOT_FOUND:not_found');
    await asAdmin.organizations.setRole({ orgId: s.org.id, userId: staff!.id, role: 'admin' });
    expect((await s.userByEmail(`staff@${s.domain}`))?.organizationRole).toBe('admin');
    expect(await (await caller(s.host)).auth.me()).toBeNull();
    expect(await codeOf((await caller(s.host)).organizations.get({ orgId: s.org.id }))).toBe('UNAUTHORIZED');
  });

  it('a session of another account, or on another hosted domain, is no session; an email-link session ends once SSO is enforced', async () => {
    const s = await samlOrganization(app());
    const other = await samlOrganization(app());
    const db = app().database.db;
    const admin = (await s.userByEmail(s.admin.email))!;
    const cookie = await sessionSetCookie(db, admin, 'email', true);
    expect(await (await caller(other.host, cookie)).auth.me()).toBeNull();
    expect(await (await caller(s.host, cookie)).auth.me()).toMatchObject({ user: { id: admin.id } });
    const insecure = await sessionSetCookie(db, admin, 'email', false);
    expect(await (await caller(s.host, insecure)).auth.me()).toBeNull();

    await call(app(), `/organizations/${s.org.id}/sso`, { key: s.acct.key, method: 'PUT', body: { enforced: true } });
    expect(await codeOf(caller(s.host, cookie))).toBe('app:sso_required');
    const plain = await newUser(app(), s.acct);
    const plainCookie = await sessionSetCookie(db, (await s.userByEmail(plain.email))!, 'email', true);
    expect(await (await caller(s.host, plainCookie)).auth.me()).toMatchObject({ user: { email: plain.email } });
  });
});

describe('sign-in link rate limit', () => {
  it('allows 5 links per address and 30 per client IP every 15 minutes, then 429 rate_limited', async () => {
    const { consumeLinkRequest } = await import('@/server/sign-in/link-limit');
    const pool = app().database.pool;
    const attempt = (email: string, ip: string) => consumeLinkRequest(pool, 'acct-limit', email, ip).then(() => 'ok', (e: AppError) => `${e.status}:${e.code}`);
    for (let i = 0; i < 5; i++) expect(await attempt('a@limit.example', '10.0.0.1')).toBe('ok');
    expect(await attempt('A@limit.example', '10.0.0.2')).toBe('429:rate_limited');
    expect(await attempt('b@limit.example', '10.0.0.1')).toBe('ok');
    for (let i = 0; i < 24; i++) expect(await attempt(`c${i}@limit.example`, '10.0.0.1')).toBe('ok');
    expect(await attempt('d@limit.example', '10.0.0.1')).toBe('429:rate_limited');
  });

  it('STEWARD_SIGN_IN_PER_IP sets the per-address budget (an office behind one NAT address)', async () => {
    const { consumeLinkRequest } = await import('@/server/sign-in/link-limit');
    const pool = app().database.pool;
    const attempt = (email: string) => consumeLinkRequest(pool, 'acct-limit-env', email, '10.0.9.9').then(() => 'ok', (e: AppError) => `${e.status}:${e.code}`);
    process.env.STEWARD_SIGN_IN_PER_IP = '3';
    try {
      for (let i = 0; i < 3; i++) expect(await attempt(`n${i}@limit-env.example`)).toBe('ok');
      expect(await attempt('n3@limit-env.example')).toBe('429:rate_limited');
    } finally {
      delete process.env.STEWARD_SIGN_IN_PER_IP;
    }
  });
});

describe('SCIM on hosted domains', () => {
  it('a SCIM token works on its own account’s hosted domain and not on another account’s', async () => {
    const { hosted } = await import('../helpers/hosted');
    const s = await samlOrganization(app());
    const other = await samlOrganization(app());
    const token = (await call(app(), `/organizations/${s.org.id}/scim/token`, { key: s.acct.key, method: 'POST' })).body.token;
    const get = (host: string) => hosted(`${app().baseUrl}/scim/v2/Users`, { host, headers: { Authorization: `Bearer ${token}` } });
    expect((await get(s.host)).status).toBe(200);
    const refused = await get(other.host);
    expect(refused.status).toBe(401);
    expect(refused.json().schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  });
});

describe('tRPC transport', () => {
  it('refuses cross-site and non-JSON mutations (CSRF) and serves same-origin JSON calls', async () => {
    vi.stubEnv('DATABASE_URL', app().database.pool.options.connectionString as string);
    const { trpcHandler } = await import('@/server/trpc/handler');
    const s = await samlOrganization(app());
    const post = (headers: Record<string, string>, body: string) =>
      trpcHandler(new Request(`https://${s.host}/api/trpc/auth.start`, { method: 'POST', headers: { host: s.host, ...headers }, body }));
    const json = JSON.stringify({ email: 'x@elsewhere.example' });
    expect((await post({ 'content-type': 'application/json', origin: 'https://evil.example' }, json)).status).toBe(403);
    expect((await post({ 'content-type': 'text/plain', origin: `https://${s.host}` }, json)).status).toBe(403);
    const ok = await post({ 'content-type': 'application/json', origin: `https://${s.host}` }, json);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ result: { data: { method: 'email' } } });
    const bad = await post({ 'content-type': 'application/json' }, JSON.stringify({ email: 'nope' }));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/email/);
    vi.unstubAllEnvs();
  });
});

describe('team admins add people by email', () => {
  it('finds people of the team’s organization only; anyone else is NOT_FOUND', async () => {
    const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true } });
    const signedIn = await s.post(s.response({ email: `lead@${s.domain}` }));
    const lead = (await s.userByEmail(`lead@${s.domain}`))!;
    // The organization admin creates the team and makes the lead (a plain member of the organization) its admin.
    const team = (await call(app(), '/teams', { key: s.acct.key, as: s.admin.email, body: { name: 'Squad' } })).body.team;
    expect(team.organization).toBe(s.org.id);
    expect((await call(app(), `/teams/${team.id}/members`, { key: s.acct.key, body: { userId: lead.id, role: 'admin' } })).status).toBe(201);
    expect(lead.organizationRole).toBe('member');
    const asLead = await caller(s.host, (await sessionUser(app(), signedIn.headers['set-cookie']))!.cookie);

    const mate = await call(app(), `/organizations/${s.org.id}/members`, { key: s.acct.key, body: { email: `mate@${s.domain}` } });
    const added = await asLead.teams.addMemberByEmail({ teamId: team.id, email: `MATE@${s.domain}` });
    expect(added.member.user.id).toBe(mate.body.member.id);

    const otherOrg = (await call(app(), '/organizations', { key: s.acct.key, body: { name: 'Elsewhere' } })).body.organization;
    await call(app(), `/organizations/${otherOrg.id}/members`, { key: s.acct.key, body: { email: 'stranger@elsewhere.example' } });
    expect(await codeOf(asLead.teams.addMemberByEmail({ teamId: team.id, email: 'stranger@elsewhere.example' }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(asLead.teams.addMemberByEmail({ teamId: team.id, email: 'ghost@nowhere.example' }))).toBe('NOT_FOUND:not_found');
  });
});
