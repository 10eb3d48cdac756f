import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '@/db/schema';
import { UserEnvelope } from '@/server/user-record/contracts';
import { ProvisionUserResponse } from '@/server/users/contracts';
import { call, newAccount, newUser, uniqueEmail, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

describe('POST /users/provision', () => {
  it('creates once (201) and finds after (200), lower-casing and trimming the email', async () => {
    const acct = await newAccount(app());
    const email = uniqueEmail('Mixed');
    const first = await call(app(), '/users/provision', { key: acct.key, body: { email: `  ${email.toUpperCase()} `, firstName: 'Grace' } });
    expect(first.status).toBe(201);
    const body = ProvisionUserResponse.parse(first.body);
    expect(body).toMatchObject({ created: true, addedToTeam: true, alreadyMember: false, joinSkipped: false });
    expect(body.user.email).toBe(email.toLowerCase());
    expect(body.user.timezone).toBe('UTC');
    expect(body.user.teamRole).toBe('owner');
    expect(body.teamId).toBe(body.user.team?.id);
    const again = await call(app(), '/users/provision', { key: acct.key, body: { email } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, addedToTeam: false, alreadyMember: true, user: { id: body.user.id } });
  });

  it('honours id only when it is 24 hex characters', async () => {
    const acct = await newAccount(app());
    const id = 'abcdef0123456789abcdef01';
    const used = await call(app(), '/users/provision', { key: acct.key, body: { email: uniqueEmail(), id } });
    expect(used.body.user.id).toBe(id);
    const ignored = await call(app(), '/users/provision', { key: acct.key, body: { email: uniqueEmail(), id: 'my-id' } });
    expect(ignored.status).toBe(201);
    expect(ignored.body.user.id).toMatch(/^[0-9a-f]{24}$/);
  });

  it('places the user on teamId, and skips the move when they own a team with other members', async () => {
    const acct = await newAccount(app());
    const owner = await newUser(app(), acct);
    const joined = await call(app(), '/users/provision', { key: acct.key, body: { email: uniqueEmail(), teamId: owner.teamId } });
    expect(joined.body).toMatchObject({ created: true, addedToTeam: true, teamId: owner.teamId, user: { teamRole: 'member' } });
    const other = await newUser(app(), acct);
    const skipped = await call(app(), '/users/provision', { key: acct.key, body: { email: owner.email, teamId: other.teamId } });
    expect(skipped.body).toMatchObject({ created: false, joinSkipped: true, addedToTeam: false, teamId: owner.teamId });
    const unknownTeam = await call(app(), '/users/provision', { key: acct.key, body: { email: uniqueEmail(), teamId: 'nope' } });
    expect(unknownTeam.status).toBe(404);
  });

  it('needs an account key; a user key or X-User-Email is refused, and bad email is 400', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const k = await userKey(app(), acct, u.id);
    expect((await call(app(), '/users/provision', { key: k, body: { email: uniqueEmail() } })).status).toBe(403);
    expect((await call(app(), '/users/provision', { key: acct.key, as: u.email, body: { email: uniqueEmail() } })).status).toBe(403);
    const bad = await call(app(), '/users/provision', { key: acct.key, body: { email: 'not-an-email' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('email');
  });

  it('answers concurrent first calls for one email with one user', async () => {
    const acct = await newAccount(app());
    const email = uniqueEmail('race');
    const results = await Promise.all([1, 2, 3].map(() => call(app(), '/users/provision', { key: acct.key, body: { email } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(results.map((r) => r.body.user.id)).size).toBe(1);
  });
});

describe('GET /users/{userId}', () => {
  it('returns the user with identifiers to the account and to the user, 404 to others', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const res = await call(app(), `/users/${u.id}`, { key: acct.key });
    const { user } = UserEnvelope.parse(res.body);
    expect(user.identifiers).toEqual([expect.objectContaining({ type: 'email', value: u.email, primary: true, verified: true })]);
    expect((await call(app(), `/users/${u.id}`, { key: acct.key, as: u.email })).status).toBe(200);
    const other = await newUser(app(), acct);
    expect((await call(app(), `/users/${u.id}`, { key: acct.key, as: other.email })).status).toBe(404);
    const otherAccount = await newAccount(app());
    expect((await call(app(), `/users/${u.id}`, { key: otherAccount.key })).status).toBe(404);
  });
});

describe('blocked users', () => {
  it('an inactive or suspended user gets 403 account_blocked on every call, and nothing is deleted', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const k = await userKey(app(), acct, u.id);
    for (const status of ['inactive', 'suspended'] as const) {
      await app().database.db.update(users).set({ status }).where(eq(users.id, u.id));
      for (const cred of [{ key: k }, { key: acct.key, as: u.email }]) {
        for (const path of ['/me', '/profile', '/api-keys']) {
          const res = await call(app(), path, cred);
          expect(res.status).toBe(403);
          expect(res.body.error_code).toBe('account_blocked');
        }
      }
    }
    await app().database.db.update(users).set({ status: 'active' }).where(eq(users.id, u.id));
    expect((await call(app(), '/me', { key: k })).status).toBe(200);
    expect((await call(app(), `/users/${u.id}`, { key: acct.key })).body.user.identifiers).toHaveLength(1);
  });
});
