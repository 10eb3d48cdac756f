import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, onboard, uniqueEmail, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * Issue 12, items 1 and 9: only a verified email identifier names a person. An address a user
 * merely claimed (unverified, made primary, or shaped like an email in another identifier type)
 * must never let anyone act as them, be provisioned as them, be placed in an organization as
 * them, or be shown as a contact's app user.
 */
const app = useTestServer();

const tag = () => Math.random().toString(36).slice(2, 8);

/** An organization with an admin and a verified domain (DNS verification itself is covered in the domain tests). */
async function orgWithDomain(acct: AccountFixture, name = 'Bigcorp') {
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const domain = `${name.toLowerCase()}-${tag()}.test`;
  const added = await call(app(), `/organizations/${org.id}/domains`, { key: acct.key, body: { domain } });
  await app().database.pool.query(`UPDATE organization_domains SET verified = true, verified_at = now() WHERE id = $1`, [added.body.domain.id]);
  return { org, admin, domain };
}

/** A user who claims `address` as an unverified email identifier through their own key. */
async function squatter(acct: AccountFixture, address: string) {
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const claim = await call(app(), '/identifiers', { key, body: { type: 'email', value: address } });
  expect(claim.status).toBe(201);
  expect(claim.body.identifier).toMatchObject({ value: address, verified: false });
  return { ...u, key, identifierId: claim.body.identifier.id as string };
}

const identifierValues = async (key: string) => (await call(app(), '/identifiers', { key })).body.identifiers.map((i: { value: string }) => i.value);

describe('an unverified address names no one', () => {
  it('make-primary refuses an unverified email (400), and the claimed address never acts as the claimant', async () => {
    const acct = await newAccount(app());
    const ceo = `ceo-${tag()}@bigcorp.test`;
    const s = await squatter(acct, ceo);
    const made = await call(app(), `/identifiers/${s.identifierId}/make-primary`, { key: s.key, method: 'POST' });
    expect(made.status).toBe(400);
    expect(made.body.error_code).toBe('bad_request');
    expect(made.body.error).toMatch(/not verified/);
    expect((await call(app(), `/users/${s.id}`, { key: acct.key })).body.user.email).toBe(s.email);
    const actAs = await call(app(), '/me', { key: acct.key, as: ceo });
    expect(actAs.status).toBe(401);
    expect(actAs.body.error_code).toBe('unauthorized');
    // Once the account vouches for a second address, it can be the primary one.
    const vouched = await call(app(), '/identifiers', { key: acct.key, body: { type: 'email', value: `alt-${tag()}@bigcorp.test`, userId: s.id, verified: true } });
    const primary = await call(app(), `/identifiers/${vouched.body.identifier.id}/make-primary`, { key: s.key, method: 'POST' });
    expect(primary.status).toBe(200);
    expect(primary.body.user.email).toBe(vouched.body.identifier.value);
  });

  it('an unverified primary made before the rule acts as no one, and provisioning that address is 409, not the squatter and not a 500', async () => {
    const acct = await newAccount(app());
    const ceo = `ceo-${tag()}@bigcorp.test`;
    const s = await squatter(acct, ceo);
    // The state the old make-primary left behind.
    await app().database.pool.query(`UPDATE identifiers SET "primary" = (id = $1) WHERE user_id = $2 AND type = 'email'`, [s.identifierId, s.id]);
    await app().database.pool.query(`UPDATE users SET email = $1 WHERE id = $2`, [ceo, s.id]);
    expect((await call(app(), '/me', { key: acct.key, as: ceo })).status).toBe(401);
    expect((await call(app(), '/me', { key: acct.key, as: ceo.toUpperCase() })).status).toBe(401);
    const provisioned = await call(app(), '/users/provision', { key: acct.key, body: { email: ceo } });
    expect(provisioned.status).toBe(409);
    expect(provisioned.body.error_code).toBe('conflict');
  });

  it('provisioning an address someone only claimed creates the real person and releases the claim', async () => {
    const acct = await newAccount(app());
    const ceo = `ceo-${tag()}@bigcorp.test`;
    const s = await squatter(acct, ceo);
    const provisioned = await call(app(), '/users/provision', { key: acct.key, body: { email: ceo } });
    expect(provisioned.status).toBe(201);
    expect(provisioned.body.created).toBe(true);
    expect(provisioned.body.user.id).not.toBe(s.id);
    expect(provisioned.body.user.identifiers).toEqual([expect.objectContaining({ type: 'email', value: ceo, verified: true, primary: true })]);
    expect(await identifierValues(s.key)).toEqual([s.email]);
    await onboard(app(), acct.key, ceo, provisioned.body.user.id);
    expect((await call(app(), '/me', { key: acct.key, as: ceo })).body.userId).toBe(provisioned.body.user.id);
    // Idempotent from then on: the same person.
    expect((await call(app(), '/users/provision', { key: acct.key, body: { email: ceo } })).body.user.id).toBe(provisioned.body.user.id);
  });

  it('an email-shaped value of any identifier type is lower-cased, unique across types, and never names a person', async () => {
    const acct = await newAccount(app());
    const a = await newUser(app(), acct);
    const aKey = await userKey(app(), acct, a.id);
    const boss = `boss-${tag()}@corp.test`;
    const custom = await call(app(), '/identifiers', { key: aKey, body: { type: 'custom', value: `  ${boss.toUpperCase()} ` } });
    expect(custom.status).toBe(201);
    expect(custom.body.identifier).toMatchObject({ type: 'custom', value: boss });
    const b = await newUser(app(), acct);
    const clash = await call(app(), '/identifiers', { key: await userKey(app(), acct, b.id), body: { type: 'email', value: boss } });
    expect(clash.status).toBe(400);
    expect(clash.body.error).toMatch(/^value: /);
    expect((await call(app(), '/me', { key: acct.key, as: boss })).status).toBe(401);

    // Even verified by the account, a custom identifier is not an email: it acts as no one and provisioning is 409, not user A.
    const ops = `ops-${tag()}@corp.test`;
    expect((await call(app(), '/identifiers', { key: acct.key, body: { type: 'custom', value: ops, userId: a.id, verified: true } })).status).toBe(201);
    expect((await call(app(), '/me', { key: acct.key, as: ops })).status).toBe(401);
    const provisioned = await call(app(), '/users/provision', { key: acct.key, body: { email: ops } });
    expect(provisioned.status).toBe(409);
    expect(provisioned.body.error).toMatch(/custom/);
  });

  it('adding an organization member by a claimed address creates the real person; the claimant stays outside', async () => {
    const acct = await newAccount(app());
    const { org, admin, domain } = await orgWithDomain(acct);
    const address = `cfo-${tag()}@${domain}`;
    const s = await squatter(acct, address);
    const added = await call(app(), `/organizations/${org.id}/members`, { key: acct.key, as: admin.email, body: { email: address } });
    expect(added.status).toBe(201);
    expect(added.body.member).toMatchObject({ email: address, status: 'active' });
    expect(added.body.member.id).not.toBe(s.id);
    expect((await call(app(), `/users/${s.id}`, { key: acct.key })).body.user.organization).toBeNull();
    expect((await call(app(), `/users/${s.id}`, { key: acct.key, as: admin.email })).status).toBe(404);
    expect(await identifierValues(s.key)).toEqual([s.email]);
  });

  it('SCIM creates the real person for a claimed address, never the claimant', async () => {
    const acct = await newAccount(app());
    const { org, admin, domain } = await orgWithDomain(acct);
    const token = (await call(app(), `/organizations/${org.id}/scim/token`, { key: acct.key, as: admin.email, method: 'POST' })).body.token;
    const address = `cto-${tag()}@${domain}`;
    const s = await squatter(acct, address);
    const created = await call(app(), '/scim/v2/Users', { key: token, rawBody: JSON.stringify({ userName: address }), headers: { 'Content-Type': 'application/scim+json' } });
    expect(created.status).toBe(201);
    expect(created.body.id).not.toBe(s.id);
    expect((await call(app(), `/users/${s.id}`, { key: acct.key })).body.user.organization).toBeNull();
  });
});

describe('act-as boundaries', () => {
  it('an organization key acts only as users of its organization; an account key only as users of its account', async () => {
    const acct = await newAccount(app());
    const { admin } = await orgWithDomain(acct);
    const orgKey = (await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'org' } })).body.apiKey.key;
    expect((await call(app(), '/me', { key: orgKey, as: admin.email })).body.userId).toBe(admin.id);
    const outsider = await newUser(app(), acct);
    const refused = await call(app(), '/me', { key: orgKey, as: outsider.email });
    expect(refused.status).toBe(401);
    expect((await call(app(), '/memories', { key: orgKey, as: outsider.email })).status).toBe(401);

    const other = await newAccount(app(), 'Other');
    const theirs = await newUser(app(), other);
    expect((await call(app(), '/me', { key: acct.key, as: theirs.email })).status).toBe(401);
    expect((await call(app(), '/memories', { key: acct.key, as: theirs.email })).status).toBe(401);
    expect((await call(app(), '/me', { key: other.key, as: theirs.email })).body.userId).toBe(theirs.id);
  });
});

describe('a contact’s consumer', () => {
  it('names an app user only through a verified email, and only within the owner’s organization (or among users without one)', async () => {
    const acct = await newAccount(app());
    const a = await orgWithDomain(acct, 'Alpha');
    const b = await orgWithDomain(acct, 'Beta');
    const alice = a.admin;
    const aliceKey = await userKey(app(), acct, alice.id);
    const colleague = (await call(app(), `/organizations/${a.org.id}/members`, { key: acct.key, body: { email: `mate-${tag()}@${a.domain}` } })).body.member;

    const sameOrg = await call(app(), '/contacts', { key: aliceKey, body: { email: colleague.email } });
    expect(sameOrg.body.contact.consumer).toEqual({ id: colleague.id, name: null, email: colleague.email });

    // A user of another organization is not revealed, by the contact's email or by consumerEmail.
    const bob = b.admin;
    const otherOrg = await call(app(), '/contacts', { key: aliceKey, body: { email: bob.email } });
    expect(otherOrg.status).toBe(201);
    expect(otherOrg.body.contact.consumer).toBeNull();
    const viaConsumerEmail = await call(app(), '/contacts', { key: aliceKey, body: { email: `bob-${tag()}@elsewhere.test`, consumerEmail: bob.email } });
    expect(viaConsumerEmail.body.contact.consumer).toBeNull();
    // Nor a user outside any organization, for an owner inside one.
    const loner = await newUser(app(), acct);
    expect((await call(app(), '/contacts', { key: aliceKey, body: { email: loner.email } })).body.contact.consumer).toBeNull();

    // An address a colleague only claimed names no one.
    const claimed = `claimed-${tag()}@${a.domain}`;
    const claimant = (await call(app(), `/organizations/${a.org.id}/members`, { key: acct.key, body: { email: `claimant-${tag()}@${a.domain}` } })).body.member;
    await onboard(app(), acct.key, claimant.email, claimant.id);
    expect((await call(app(), '/identifiers', { key: await userKey(app(), acct, claimant.id), body: { type: 'email', value: claimed } })).status).toBe(201);
    const byClaim = await call(app(), '/contacts', { key: aliceKey, body: { email: claimed } });
    expect(byClaim.body.contact.consumer).toBeNull();

    const listed = await call(app(), '/contacts', { key: aliceKey });
    const consumers = Object.fromEntries(listed.body.contacts.map((c: { email: string; consumer: { id: string } | null }) => [c.email, c.consumer?.id ?? null]));
    expect(consumers).toEqual({
      [colleague.email]: colleague.id,
      [bob.email]: null,
      [viaConsumerEmail.body.contact.email]: null,
      [loner.email]: null,
      [claimed]: null,
    });
    expect((await call(app(), `/contacts/${otherOrg.body.contact.id}`, { key: aliceKey })).body.contact.consumer).toBeNull();

    // Between two users without an organization the link stays.
    const x = await newUser(app(), acct);
    const y = await newUser(app(), acct, { email: uniqueEmail('y') });
    const plain = await call(app(), '/contacts', { key: await userKey(app(), acct, x.id), body: { email: y.email } });
    expect(plain.body.contact.consumer).toEqual({ id: y.id, name: null, email: y.email });
  });
});
