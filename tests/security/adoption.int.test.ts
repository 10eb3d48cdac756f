import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '@/db/schema';
import { setHostedDomain } from '@/server/hosted/accounts';
import { AppError } from '@/server/http/errors';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { call, newAccount, newUser, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * Issue 12, item 4: an organization (its admins, its keys, its SCIM token) adopts directly only
 * people at its verified domains. Anyone else is invited and stays outside until they accept in
 * the hosted app, signed in with that verified address; SCIM, which cannot invite, refuses.
 */
const app = useTestServer();
const SCIM = { 'Content-Type': 'application/scim+json' };
const tag = () => Math.random().toString(36).slice(2, 8);

/** An account on its own hosted domain, with an organization, its admin and a verified domain. */
async function setup() {
  const acct = await newAccount(app());
  const host = `app-${tag()}.steward.test`;
  await setHostedDomain(app().database.db, acct.accountId, host);
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: `Acme ${tag()}` } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const domain = `acme-${tag()}.test`;
  const added = await call(app(), `/organizations/${org.id}/domains`, { key: acct.key, as: admin.email, body: { domain } });
  // DNS verification itself is covered in the domain tests.
  await app().database.pool.query(`UPDATE organization_domains SET verified = true, verified_at = now() WHERE id = $1`, [added.body.domain.id]);
  const asAdmin = { key: acct.key, as: admin.email };
  return { acct, host, org, admin, domain, asAdmin };
}

/** The hosted app's tRPC caller, signed in as the user (a real session cookie) on the account's host. */
async function hostedAs(host: string, userId: string) {
  const [user] = await app().database.db.select().from(users).where(eq(users.id, userId));
  const cookie = await sessionSetCookie(app().database.db, user, 'email', true);
  return appRouter.createCaller(await portalContext(app().database.db, new Headers({ host, cookie: cookie.split(';')[0] })));
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (e instanceof TRPCError && e.cause instanceof AppError) return `${e.code}:${e.cause.code}`;
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
};

const organizationOf = async (acct: AccountFixture, userId: string) => (await call(app(), `/users/${userId}`, { key: acct.key })).body.user.organization;
const lastMailTo = async (to: string) =>
  (await app().database.pool.query(`SELECT subject, text FROM mail_outbox WHERE "to" = $1 ORDER BY created_at DESC LIMIT 1`, [to])).rows[0];

describe('organization admins adopt only at their verified domains', () => {
  it('a user outside the domains is invited, stays out of the admin’s reach, and joins only by accepting in the hosted app', async () => {
    const { acct, host, org, asAdmin } = await setup();
    const person = await newUser(app(), acct);
    expect((await call(app(), '/memories', { key: acct.key, as: person.email, body: { content: 'My bank PIN hint' } })).status).toBe(201);

    const added = await call(app(), `/organizations/${org.id}/members`, { ...asAdmin, body: { email: person.email } });
    expect(added.status).toBe(201);
    expect(added.body.member).toMatchObject({ email: person.email, name: null, organizationRole: 'member', status: 'invited' });
    expect(added.body.member.id).not.toBe(person.id);

    // Pending: not a member, so the admin can neither see them, mint a key for them, nor act as them.
    expect(await organizationOf(acct, person.id)).toBeNull();
    expect((await call(app(), `/users/${person.id}`, asAdmin)).status).toBe(404);
    // (api-keys answers 403 here rather than the house 404; either way no key is minted.)
    expect([403, 404]).toContain((await call(app(), '/api-keys', { ...asAdmin, body: { label: 'theirs', userId: person.id } })).status);
    const orgKey = (await call(app(), '/api-keys', { ...asAdmin, body: { label: 'org' } })).body.apiKey.key;
    expect((await call(app(), '/memories', { key: orgKey, as: person.email })).status).toBe(401);
    expect((await call(app(), `/organizations/${org.id}/members`, asAdmin)).body.members.map((m: { id: string }) => m.id)).not.toContain(person.id);

    const mail = await lastMailTo(person.email);
    expect(mail.subject).toBe(`You are invited to join ${org.name}`);
    expect(mail.text).toContain(`https://${host}/invitations`);

    // Someone else signed in sees nothing and cannot answer it.
    const stranger = await newUser(app(), acct);
    const asStranger = await hostedAs(host, stranger.id);
    expect((await asStranger.organizations.invitations()).invitations).toEqual([]);
    expect(await codeOf(asStranger.organizations.acceptInvitation({ invitationId: added.body.member.id }))).toBe('NOT_FOUND:not_found');
    expect(await organizationOf(acct, stranger.id)).toBeNull();

    const asPerson = await hostedAs(host, person.id);
    const pending = await asPerson.organizations.invitations();
    expect(pending.invitations).toEqual([{ id: added.body.member.id, organization: { id: org.id, name: org.name }, email: person.email, status: 'pending', createdAt: expect.any(String) }]);
    const accepted = await asPerson.organizations.acceptInvitation({ invitationId: added.body.member.id });
    expect(accepted.invitation.status).toBe('accepted');
    expect(await organizationOf(acct, person.id)).toBe(org.id);
    expect((await call(app(), `/users/${person.id}`, asAdmin)).status).toBe(200);
    expect((await asPerson.organizations.invitations()).invitations).toEqual([]);
    expect(await codeOf(asPerson.organizations.acceptInvitation({ invitationId: added.body.member.id }))).toBe('NOT_FOUND:not_found');
  });

  it('a brand-new address outside the domains gets a user outside the organization, and the same answer as an existing one', async () => {
    const { acct, host, org, asAdmin } = await setup();
    const address = `newcomer-${tag()}@gmail.test`;
    const added = await call(app(), `/organizations/${org.id}/members`, { ...asAdmin, body: { email: address } });
    expect(added.status).toBe(201);
    expect(Object.keys(added.body.member).sort()).toEqual(['createdAt', 'email', 'id', 'name', 'organizationRole', 'status']);
    expect(added.body.member).toMatchObject({ email: address, name: null, status: 'invited' });
    const found = (await call(app(), `/users?email=${encodeURIComponent(address)}`, { key: acct.key })).body.users;
    expect(found).toHaveLength(1);
    expect(found[0].organization).toBeNull();
    const orgKey = (await call(app(), '/api-keys', { ...asAdmin, body: { label: 'org' } })).body.apiKey.key;
    expect((await call(app(), '/me', { key: orgKey, as: address })).status).toBe(401);

    // Declining leaves them outside; a new invitation can still be sent later.
    const asNewcomer = await hostedAs(host, found[0].id);
    expect((await asNewcomer.organizations.declineInvitation({ invitationId: added.body.member.id })).invitation.status).toBe('declined');
    expect(await organizationOf(acct, found[0].id)).toBeNull();
    expect((await asNewcomer.organizations.invitations()).invitations).toEqual([]);
  });

  it('an address at a domain another organization verified is not the admin’s to invite (403), and no user is created', async () => {
    const { acct, org, asAdmin } = await setup();
    const rival = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Rival' } })).body.organization;
    const rivalDomain = `rival-${tag()}.test`;
    const claimed = await call(app(), `/organizations/${rival.id}/domains`, { key: acct.key, body: { domain: rivalDomain, autoJoin: true } });
    await app().database.pool.query(`UPDATE organization_domains SET verified = true, verified_at = now() WHERE id = $1`, [claimed.body.domain.id]);
    const address = `poached-${tag()}@${rivalDomain}`;
    const refused = await call(app(), `/organizations/${org.id}/members`, { ...asAdmin, body: { email: address } });
    expect(refused.status).toBe(403);
    expect((await call(app(), `/users?email=${encodeURIComponent(address)}`, { key: acct.key })).body.users).toEqual([]);
  });

  it('someone who joined another organization meanwhile cannot accept (409), and stays where they are', async () => {
    const { acct, host, org, asAdmin } = await setup();
    const person = await newUser(app(), acct);
    const invitation = (await call(app(), `/organizations/${org.id}/members`, { ...asAdmin, body: { email: person.email } })).body.member;
    const other = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Other' } })).body.organization;
    await call(app(), `/users/${person.id}`, { key: acct.key, method: 'PUT', body: { organization: other.id } });
    expect(await codeOf((await hostedAs(host, person.id)).organizations.acceptInvitation({ invitationId: invitation.id }))).toBe('CONFLICT:conflict');
    expect(await organizationOf(acct, person.id)).toBe(other.id);
  });

  it('at a verified domain the admin adds directly, existing users without an organization included', async () => {
    const { acct, org, domain, asAdmin } = await setup();
    const existing = await newUser(app(), acct, { email: `staff-${tag()}@${domain}` });
    const added = await call(app(), `/organizations/${org.id}/members`, { ...asAdmin, body: { email: existing.email.toUpperCase() } });
    expect(added.body.member).toMatchObject({ id: existing.id, email: existing.email, status: 'active' });
    expect(await organizationOf(acct, existing.id)).toBe(org.id);
    const fresh = await call(app(), `/organizations/${org.id}/members`, { ...asAdmin, body: { email: `fresh-${tag()}@${domain}` } });
    expect(fresh.body.member.status).toBe('active');
    expect(await organizationOf(acct, fresh.body.member.id)).toBe(org.id);
  });
});

describe('organization keys provision only at their verified domains', () => {
  it('an existing outsider and a new address outside the domains are both 403, with nothing changed; the domain works', async () => {
    const { acct, org, domain, asAdmin } = await setup();
    const orgKey = (await call(app(), '/api-keys', { ...asAdmin, body: { label: 'org' } })).body.apiKey.key;
    const outsider = await newUser(app(), acct);
    const adopt = await call(app(), '/users/provision', { key: orgKey, body: { email: outsider.email } });
    expect(adopt.status).toBe(403);
    expect(adopt.body.error).toMatch(/verified domains/);
    expect(await organizationOf(acct, outsider.id)).toBeNull();
    const address = `someone-${tag()}@gmail.test`;
    const claim = await call(app(), '/users/provision', { key: orgKey, body: { email: address } });
    expect(claim.status).toBe(403);
    expect(claim.body.error).toBe(adopt.body.error);
    expect((await call(app(), `/users?email=${encodeURIComponent(address)}`, { key: acct.key })).body.users).toEqual([]);

    const inside = await call(app(), '/users/provision', { key: orgKey, body: { email: `hire-${tag()}@${domain}` } });
    expect(inside.status).toBe(201);
    expect(inside.body.user.organization).toBe(org.id);
    const atDomain = await newUser(app(), acct, { email: `early-${tag()}@${domain}` });
    const adopted = await call(app(), '/users/provision', { key: orgKey, body: { email: atDomain.email } });
    expect(adopted.status).toBe(200);
    expect(await organizationOf(acct, atDomain.id)).toBe(org.id);
  });
});

describe('SCIM never adopts outside its organization', () => {
  async function scimSetup() {
    const s = await setup();
    const token = (await call(app(), `/organizations/${s.org.id}/scim/token`, { ...s.asAdmin, method: 'POST' })).body.token as string;
    const scim = (path: string, opts: { method?: string; body?: unknown } = {}) =>
      call(app(), `/scim/v2${path}`, { key: token, method: opts.method ?? (opts.body ? 'POST' : 'GET'), rawBody: opts.body ? JSON.stringify(opts.body) : undefined, headers: SCIM });
    return { ...s, token, scim };
  }

  it('a user without an organization outside the domains, or a new address there, is 403; another organization’s user is 409', async () => {
    const { acct, domain, scim } = await scimSetup();
    const outsider = await newUser(app(), acct);
    const adopt = await scim('/Users', { body: { userName: outsider.email } });
    expect(adopt.status).toBe(403);
    expect(adopt.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    expect(await organizationOf(acct, outsider.id)).toBeNull();
    expect((await scim('/Users', { body: { userName: `nobody-${tag()}@gmail.test` } })).status).toBe(403);

    const rival = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Rival' } })).body.organization;
    const theirs = await newUser(app(), acct, { email: `moved-${tag()}@${domain}` });
    await call(app(), `/users/${theirs.id}`, { key: acct.key, method: 'PUT', body: { organization: rival.id } });
    const taken = await scim('/Users', { body: { userName: theirs.email } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    expect(await organizationOf(acct, theirs.id)).toBe(rival.id);
  });

  it('refuses group members from another organization (400) and leaves no group behind', async () => {
    const { acct, domain, scim } = await scimSetup();
    const own = (await scim('/Users', { body: { userName: `own-${tag()}@${domain}` } })).body.id;
    const elsewhere = await setup();
    const foreign = (await call(app(), `/organizations/${elsewhere.org.id}/members`, { key: elsewhere.acct.key, body: { email: `x-${tag()}@${elsewhere.domain}` } })).body.member.id;
    const rival = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Rival' } })).body.organization;
    const sameAccount = await newUser(app(), acct);
    await call(app(), `/users/${sameAccount.id}`, { key: acct.key, method: 'PUT', body: { organization: rival.id } });
    const loner = await newUser(app(), acct);
    const groupsBefore = (await scim('/Groups')).body.totalResults;

    for (const intruder of [foreign, sameAccount.id, loner.id]) {
      const group = await scim('/Groups', { body: { displayName: `Ops ${intruder}`, members: [{ value: own }, { value: intruder }] } });
      expect(group.status).toBe(400);
      expect(group.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    }
    expect((await scim('/Groups')).body.totalResults).toBe(groupsBefore);
    expect(await organizationOf(acct, sameAccount.id)).toBe(rival.id);
    expect(await organizationOf(acct, loner.id)).toBeNull();

    const ok = await scim('/Groups', { body: { displayName: 'Ops', members: [{ value: own }] } });
    expect(ok.status).toBe(201);
    const patched = await scim(`/Groups/${ok.body.id}`, { method: 'PATCH', body: { Operations: [{ op: 'add', path: 'members', value: [{ value: loner.id }] }] } });
    expect(patched.status).toBe(400);
    expect((await scim(`/Groups/${ok.body.id}`)).body.members.map((m: { value: string }) => m.value)).toEqual([own]);
  });

  it('a duplicate externalId is 409 uniqueness, and a PUT with only userName answers the user unchanged', async () => {
    const { domain, scim } = await scimSetup();
    const first = await scim('/Users', { body: { userName: `one-${tag()}@${domain}`, externalId: 'okta-7', name: { givenName: 'One' } } });
    expect(first.status).toBe(201);
    const dup = await scim('/Users', { body: { userName: `two-${tag()}@${domain}`, externalId: 'okta-7' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    const second = await scim('/Users', { body: { userName: `two-${tag()}@${domain}`, externalId: 'okta-8' } });
    expect(second.status).toBe(201);
    const patchDup = await scim(`/Users/${second.body.id}`, { method: 'PATCH', body: { Operations: [{ op: 'replace', path: 'externalId', value: 'okta-7' }] } });
    expect(patchDup.status).toBe(409);
    const putDup = await scim(`/Users/${second.body.id}`, { method: 'PUT', body: { userName: second.body.userName, externalId: 'okta-7' } });
    expect(putDup.status).toBe(409);
    expect((await scim(`/Users/${second.body.id}`)).body.externalId).toBe('okta-8');

    const bare = await scim(`/Users/${first.body.id}`, { method: 'PUT', body: { userName: first.body.userName } });
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ id: first.body.id, userName: first.body.userName, externalId: 'okta-7', name: { givenName: 'One' }, active: true });
    const renamed = await scim(`/Users/${first.body.id}`, { method: 'PUT', body: { userName: `other-${tag()}@${domain}` } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.detail).toMatch(/userName/);
  });
});
