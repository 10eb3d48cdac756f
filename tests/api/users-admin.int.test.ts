import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { organizations, users } from '@/db/schema';
import { ListUsersResponse } from '@/server/users/contracts';
import { call, newAccount, newUser, uniqueEmail, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const db = () => app().database.db;

async function orgSetup() {
  const acct = await newAccount(app());
  const [org] = await db().insert(organizations).values({ accountId: acct.accountId, name: 'Org' }).returning();
  const admin = await newUser(app(), acct);
  const member = await newUser(app(), acct);
  const outsider = await newUser(app(), acct);
  await db().update(users).set({ organizationId: org.id, organizationRole: 'admin' }).where(eq(users.id, admin.id));
  await db().update(users).set({ organizationId: org.id, organizationRole: 'member' }).where(eq(users.id, member.id));
  return { acct, org, admin, member, outsider };
}

describe('GET /users', () => {
  it('lists newest first with filters; an organization admin sees only the organization; a user only themself', async () => {
    const { acct, org, admin, member, outsider } = await orgSetup();
    const all = ListUsersResponse.parse((await call(app(), '/users', { key: acct.key })).body);
    expect(all.users.map((u) => u.id)).toEqual([outsider.id, member.id, admin.id]);
    expect(all.total).toBe(3);
    const ids = async (qs: string, cred: object = { key: acct.key }) => (await call(app(), `/users?${qs}`, cred)).body.users.map((u: { id: string }) => u.id);
    expect(await ids(`organizationId=${org.id}`)).toEqual([member.id, admin.id]);
    expect(await ids(`email=${member.email.toUpperCase()}`)).toEqual([member.id]);
    expect(await ids(`search=${outsider.email.split('@')[0].toUpperCase()}`)).toEqual([outsider.id]);
    expect(await ids('', { key: acct.key, as: admin.email })).toEqual([member.id, admin.id]);
    expect(await ids('', { key: acct.key, as: outsider.email })).toEqual([outsider.id]);
    await db().update(users).set({ externalId: 'crm-7' }).where(eq(users.id, member.id));
    expect(await ids('externalId=crm-7')).toEqual([member.id]);
  });
});

describe('PUT /users/{userId}', () => {
  it('suspending blocks every call as the user (403 account_blocked), deletes nothing, and active restores', async () => {
    const { acct, member } = await orgSetup();
    const k = await userKey(app(), acct, member.id);
    const res = await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { status: 'suspended', firstName: 'Sam', metadata: { plan: 'pro' } } });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ status: 'suspended', firstName: 'Sam', metadata: { plan: 'pro' } });
    expect((await call(app(), '/me', { key: k })).body.error_code).toBe('account_blocked');
    expect((await call(app(), '/profile', { key: acct.key, as: member.email })).status).toBe(403);
    await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { status: 'active' } });
    expect((await call(app(), '/me', { key: k })).status).toBe(200);
    expect((await call(app(), `/users/${member.id}`, { key: acct.key })).body.user.identifiers).toHaveLength(1);
  });

  it('organization admins reach only their organization (403 outside); members cannot change users', async () => {
    const { acct, admin, member, outsider } = await orgSetup();
    expect((await call(app(), `/users/${member.id}`, { key: acct.key, as: admin.email, method: 'PUT', body: { lastName: 'Ok' } })).status).toBe(200);
    expect((await call(app(), `/users/${outsider.id}`, { key: acct.key, as: admin.email, method: 'PUT', body: { lastName: 'No' } })).status).toBe(403);
    expect((await call(app(), `/users/${admin.id}`, { key: acct.key, as: member.email, method: 'PUT', body: { lastName: 'No' } })).status).toBe(404);
    expect((await call(app(), `/users/${member.id}`, { key: acct.key, as: member.email, method: 'PUT', body: { status: 'active' } })).status).toBe(403);
    const other = await newAccount(app());
    expect((await call(app(), `/users/${member.id}`, { key: other.key, method: 'PUT', body: { lastName: 'x' } })).status).toBe(404);
  });

  it('the only admin cannot leave or lose the role (409 requiresOrgAdminTransfer); externalId stays unique', async () => {
    const { acct, org, admin, member } = await orgSetup();
    const demote = await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organizationRole: 'member' } });
    expect(demote.status).toBe(409);
    expect(demote.body).toMatchObject({ requiresOrgAdminTransfer: true, organizationId: org.id });
    expect((await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: null } })).status).toBe(409);
    expect((await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { organizationRole: 'admin' } })).body.user.organizationRole).toBe('admin');
    expect((await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: null } })).body.user.organization).toBeNull();
    await call(app(), `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { externalId: 'ext-1' } });
    expect((await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { externalId: 'ext-1' } })).status).toBe(409);
    expect((await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: 'nope' } })).status).toBe(404);
    expect((await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { status: 'gone' } })).status).toBe(400);
  });
});

describe('DELETE /users/{userId} and POST /users/deprovision', () => {
  it('refuses the owner of a shared team (400) and the only admin (409) with nothing changed, then deletes', async () => {
    const { acct, org, admin, member } = await orgSetup();
    const teammate = await newUser(app(), acct, { teamId: member.teamId });
    const owner = await call(app(), `/users/${member.id}`, { key: acct.key, method: 'DELETE' });
    expect(owner.status).toBe(400);
    expect(owner.body).toMatchObject({ requiresOwnershipTransfer: true, teamId: member.teamId });
    const onlyAdmin = await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'DELETE' });
    expect(onlyAdmin.status).toBe(409);
    expect(onlyAdmin.body).toMatchObject({ requiresOrgAdminTransfer: true, organizationId: org.id });
    expect((await call(app(), `/users/${admin.id}`, { key: acct.key })).status).toBe(200);
    const del = await call(app(), `/users/${teammate.id}`, { key: acct.key, method: 'DELETE' });
    expect(del.body).toEqual({ ok: true, user: { id: teammate.id, deleted: true, message: expect.any(String) } });
    expect((await call(app(), `/users/${teammate.id}`, { key: acct.key })).status).toBe(404);
    expect((await call(app(), '/me', { key: acct.key, as: teammate.email })).status).toBe(401);
  });

  it('deprovision removes one membership; a user with none left is deleted; unknown email is deleted:false', async () => {
    const acct = await newAccount(app());
    const owner = await newUser(app(), acct);
    const u = await newUser(app(), acct);
    await call(app(), '/users/provision', { key: acct.key, body: { email: u.email, teamId: owner.teamId } });
    const none = await call(app(), '/users/deprovision', { key: acct.key, body: { email: uniqueEmail('ghost'), teamId: owner.teamId } });
    expect(none.body).toEqual({ ok: true, deleted: false, userDeleted: false, userId: null, message: expect.any(String) });
    expect((await call(app(), '/users/deprovision', { key: acct.key, body: { email: u.email, teamId: 'nope' } })).status).toBe(404);
    // u keeps the archived membership of the team they were created in, so only this membership goes.
    const first = await call(app(), '/users/deprovision', { key: acct.key, body: { email: u.email, teamId: owner.teamId } });
    expect(first.body).toMatchObject({ deleted: true, userDeleted: false, userId: u.id });
    const own = await app().database.pool.query(`SELECT team_id FROM team_memberships WHERE user_id = $1`, [u.id]);
    const second = await call(app(), '/users/deprovision', { key: acct.key, body: { email: u.email, teamId: own.rows[0].team_id } });
    expect(second.body).toMatchObject({ deleted: true, userDeleted: true, userId: u.id });
    expect((await call(app(), `/users/${u.id}`, { key: acct.key })).status).toBe(404);
    const blocked = await call(app(), '/users/deprovision', { key: acct.key, body: { email: owner.email, teamId: owner.teamId } });
    expect(blocked.status).toBe(200);
    expect(blocked.body.userDeleted).toBe(true);
  });
});
