import { beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey, uniqueEmail, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * X-User-Email names a person only inside the credential's reach: an organization key acts
 * as users of its organization, an account key as users of its account. Outside that the
 * request is refused before anything runs; it never acts as someone else and never falls
 * back to the credential's own access.
 */
const app = useTestServer();

type Person = { id: string; email: string; key: string };
let acct: AccountFixture;
let orgKey: string;
let insider: Person;
let otherOrgMember: Person;
let loner: Person;
let elsewhere: AccountFixture;
let foreigner: Person;

async function person(a: AccountFixture, orgId?: string): Promise<Person> {
  const u = await newUser(app(), a);
  if (orgId) {
    const put = await call(app(), `/users/${u.id}`, { key: a.key, method: 'PUT', body: { organization: orgId, organizationRole: 'member' } });
    expect(put.status).toBe(200);
  }
  return { id: u.id, email: u.email, key: await userKey(app(), a, u.id) };
}

async function organizationKey(a: AccountFixture, name: string) {
  const org = (await call(app(), '/organizations', { key: a.key, body: { name } })).body.organization;
  const admin = await newUser(app(), a);
  await call(app(), `/users/${admin.id}`, { key: a.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const created = await call(app(), '/api-keys', { key: a.key, as: admin.email, body: { label: `${name} key` } });
  expect(created.status).toBe(201);
  expect(created.body.apiKey.organization).toBe(org.id);
  return { orgId: org.id as string, key: created.body.apiKey.key as string };
}

const memoriesOf = async (p: Person) => ((await call(app(), '/memories', { key: p.key })).body.memories as Array<{ content: string }>).map((m) => m.content);

beforeAll(async () => {
  // Every refusal here is a failed authentication by design; the per-address lockout is tested elsewhere.
  Object.assign(app().kernel.rateLimits.defaults, { failedAuth: 1_000_000 });
  acct = await newAccount(app(), 'Home');
  const mine = await organizationKey(acct, 'Mine');
  orgKey = mine.key;
  insider = await person(acct, mine.orgId);
  const theirs = await organizationKey(acct, 'Theirs');
  otherOrgMember = await person(acct, theirs.orgId);
  loner = await person(acct);
  elsewhere = await newAccount(app(), 'Elsewhere');
  foreigner = await person(elsewhere);
});

describe('an organization key with X-User-Email', () => {
  it('acts as a user of its own organization (the control)', async () => {
    const me = await call(app(), '/me', { key: orgKey, as: insider.email });
    expect(me.status).toBe(200);
    expect(me.body.userId).toBe(insider.id);
    const wrote = await call(app(), '/memories', { key: orgKey, as: insider.email, body: { content: 'written by the org key' } });
    expect(wrote.status).toBe(201);
    expect(await memoriesOf(insider)).toContain('written by the org key');
  });

  it('is refused for a user of another organization, a user without one, and a user of another account: nothing is written', async () => {
    for (const target of [otherOrgMember, loner, foreigner]) {
      for (const email of [target.email, target.email.toUpperCase(), ` ${target.email} `]) {
        const me = await call(app(), '/me', { key: orgKey, as: email });
        expect([401, 404], `${email}: ${JSON.stringify(me.body)}`).toContain(me.status);
        const wrote = await call(app(), '/memories', { key: orgKey, as: email, body: { content: `planted for ${email}` } });
        expect([401, 404], `${email}: ${JSON.stringify(wrote.body)}`).toContain(wrote.status);
        const read = await call(app(), `/users/${target.id}`, { key: orgKey, as: email });
        expect([401, 404]).toContain(read.status);
      }
      expect(await memoriesOf(target)).toEqual([]);
    }
  });
});

describe("account A's key with X-User-Email of account B's user", () => {
  it('is refused (401), never acting as them and never as the account', async () => {
    for (const email of [foreigner.email, foreigner.email.toUpperCase()]) {
      const me = await call(app(), '/me', { key: acct.key, as: email });
      expect(me.status, JSON.stringify(me.body)).toBe(401);
      const wrote = await call(app(), '/memories', { key: acct.key, as: email, body: { content: 'planted across accounts' } });
      expect(wrote.status).toBe(401);
      // Account-wide reads are not what the caller gets instead.
      const users = await call(app(), '/users', { key: acct.key, as: email });
      expect(users.status).toBe(401);
    }
    expect(await memoriesOf(foreigner)).toEqual([]);
  });

  it('an address held in both accounts names the caller’s own account’s user only', async () => {
    const shared = uniqueEmail('both');
    const here = await newUser(app(), acct, { email: shared });
    const there = await newUser(app(), elsewhere, { email: shared });
    const me = await call(app(), '/me', { key: acct.key, as: shared });
    expect(me.body).toMatchObject({ accountId: acct.accountId, userId: here.id });
    expect((await call(app(), '/memories', { key: acct.key, as: shared, body: { content: 'for home' } })).status).toBe(201);
    const thereKey = await userKey(app(), elsewhere, there.id);
    expect(((await call(app(), '/memories', { key: thereKey })).body.memories as unknown[]).length).toBe(0);
    expect((await call(app(), '/me', { key: elsewhere.key, as: shared })).body).toMatchObject({ accountId: elsewhere.accountId, userId: there.id });
  });
});
