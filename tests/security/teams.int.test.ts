import { eq } from 'drizzle-orm';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { users } from '@/db/schema';
import { setHostedDomain } from '@/server/hosted/accounts';
import { AppError } from '@/server/http/errors';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * Issue 12, item 5: a team admin reaches only people on their side of the organization line,
 * and only an admin of a team chooses who inherits it. The REST API and the hosted app share
 * the rule because both call the same service.
 */
const app = useTestServer();

type Person = Awaited<ReturnType<typeof newUser>>;
const userOf = async (acct: AccountFixture, id: string) => (await call(app(), `/users/${id}`, { key: acct.key })).body.user;
const membersOf = async (acct: AccountFixture, teamId: string) =>
  ((await call(app(), `/teams/${teamId}/members?perPage=50`, { key: acct.key })).body.members as Array<{ id: string; role: string; user: { id: string } }>).map((m) => [m.user.id, m.role]);

/** An organization with an admin who owns one of its teams. */
async function organizationWithTeam(acct: AccountFixture, name: string) {
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const team = (await call(app(), '/teams', { key: acct.key, as: admin.email, body: { name: `${name} squad` } })).body.team;
  expect(team.organization).toBe(org.id);
  return { org, admin, team };
}

/** Someone moved into an organization by the account (the one path that may cross the line). */
async function memberOf(acct: AccountFixture, orgId: string): Promise<Person> {
  const p = await newUser(app(), acct);
  const put = await call(app(), `/users/${p.id}`, { key: acct.key, method: 'PUT', body: { organization: orgId, organizationRole: 'member' } });
  expect(put.status).toBe(200);
  return p;
}

describe('adding people to a team (REST)', () => {
  it('the owner of a team outside any organization cannot pull in a member of an organization: 404, nothing moves', async () => {
    const acct = await newAccount(app());
    const lead = await newUser(app(), acct);
    const leadKey = await userKey(app(), acct, lead.id);
    const { org, team: theirTeam } = await organizationWithTeam(acct, 'Victim Co');
    const victim = await memberOf(acct, org.id);
    const joined = await call(app(), `/teams/${theirTeam.id}/members`, { key: acct.key, body: { userId: victim.id } });
    expect(joined.status).toBe(201);

    const res = await call(app(), `/teams/${lead.teamId}/members`, { key: leadKey, body: { userId: victim.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(res.body.error_code).toBe('not_found');
    const after = await userOf(acct, victim.id);
    expect(after.team.id).toBe(theirTeam.id);
    expect(after.organization).toBe(org.id);
    expect(await membersOf(acct, lead.teamId)).toEqual([[lead.id, 'owner']]);
  });

  it('an organization team admin cannot adopt a user without an organization, nor take one from another organization: 404', async () => {
    const acct = await newAccount(app());
    const { admin, team } = await organizationWithTeam(acct, 'Adopter');
    const adminKey = await userKey(app(), acct, admin.id);
    const loner = await newUser(app(), acct);
    const { org: otherOrg } = await organizationWithTeam(acct, 'Other');
    const foreigner = await memberOf(acct, otherOrg.id);

    for (const who of [loner, foreigner]) {
      const res = await call(app(), `/teams/${team.id}/members`, { key: adminKey, body: { userId: who.id } });
      expect(res.status, JSON.stringify(res.body)).toBe(404);
    }
    // The same as the admin through the account key with X-User-Email.
    expect((await call(app(), `/teams/${team.id}/members`, { key: acct.key, as: admin.email, body: { userId: loner.id } })).status).toBe(404);
    expect((await userOf(acct, loner.id)).organization).toBeNull();
    expect((await userOf(acct, loner.id)).team.id).toBe(loner.teamId);
    expect((await userOf(acct, foreigner.id)).organization).toBe(otherOrg.id);
  });

  it('people on the same side still join: a colleague of the organization, or a user without one for a team without one', async () => {
    const acct = await newAccount(app());
    const { org, admin, team } = await organizationWithTeam(acct, 'Same side');
    const colleague = await memberOf(acct, org.id);
    const added = await call(app(), `/teams/${team.id}/members`, { key: await userKey(app(), acct, admin.id), body: { userId: colleague.id } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect((await userOf(acct, colleague.id)).team.id).toBe(team.id);

    const lead = await newUser(app(), acct);
    const loner = await newUser(app(), acct);
    const joined = await call(app(), `/teams/${lead.teamId}/members`, { key: await userKey(app(), acct, lead.id), body: { userId: loner.id, role: 'admin' } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.body.member).toMatchObject({ role: 'admin', user: { id: loner.id } });
  });

  it('an account-wide key keeps the spec: another organization’s user is 403, a user without one joins and becomes a member', async () => {
    const acct = await newAccount(app());
    const { org, team } = await organizationWithTeam(acct, 'Account moves');
    const { org: otherOrg } = await organizationWithTeam(acct, 'Elsewhere');
    const foreigner = await memberOf(acct, otherOrg.id);
    expect((await call(app(), `/teams/${team.id}/members`, { key: acct.key, body: { userId: foreigner.id } })).status).toBe(403);
    const loner = await newUser(app(), acct);
    expect((await call(app(), `/teams/${team.id}/members`, { key: acct.key, body: { userId: loner.id } })).status).toBe(201);
    expect(await userOf(acct, loner.id)).toMatchObject({ organization: org.id, organizationRole: 'member' });
  });
});

describe('who inherits a team when its owner is moved', () => {
  /** A victim who owns a team with one other member (the would-be heir), plus an unrelated team admin. */
  async function setting() {
    const acct = await newAccount(app());
    const victim = await newUser(app(), acct);
    const heir = await newUser(app(), acct, { teamId: victim.teamId });
    const lead = await newUser(app(), acct);
    return { acct, victim, heir, lead, leadKey: await userKey(app(), acct, lead.id) };
  }

  it('a team admin who does not administer the victim’s team cannot name its next owner: 403, the victim keeps both team and ownership', async () => {
    const { acct, victim, heir, lead, leadKey } = await setting();
    const res = await call(app(), `/teams/${lead.teamId}/members`, { key: leadKey, body: { userId: victim.id, newOwnerId: heir.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.error).toMatch(/newOwnerId/);
    expect(await membersOf(acct, victim.teamId)).toEqual(expect.arrayContaining([[victim.id, 'owner'], [heir.id, 'member']]));
    expect((await userOf(acct, victim.id)).team.id).toBe(victim.teamId);
    // Without newOwnerId the spec's 400 still tells the caller a transfer is needed.
    const plain = await call(app(), `/teams/${lead.teamId}/members`, { key: leadKey, body: { userId: victim.id } });
    expect(plain.status).toBe(400);
    expect(plain.body).toMatchObject({ requiresOwnershipTransfer: true, teamId: victim.teamId });
  });

  it('an organization key cannot make a user outside its organization own a new team, nor hand away their team', async () => {
    const acct = await newAccount(app());
    const { admin } = await organizationWithTeam(acct, 'Grabber');
    const orgKey = (await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'org key' } })).body.apiKey.key;
    const victim = await newUser(app(), acct);
    const heir = await newUser(app(), acct, { teamId: victim.teamId });
    const res = await call(app(), '/teams', { key: orgKey, body: { name: 'Grab', ownerId: victim.id, newOwnerId: heir.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect((await userOf(acct, victim.id)).organization).toBeNull();
    expect(await membersOf(acct, victim.teamId)).toEqual(expect.arrayContaining([[victim.id, 'owner']]));
  });

  it('someone who administers the victim’s team may choose the heir: the account, or an admin of its organization', async () => {
    const { acct, victim, heir, lead } = await setting();
    const moved = await call(app(), `/teams/${lead.teamId}/members`, { key: acct.key, body: { userId: victim.id, newOwnerId: heir.id } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect(await membersOf(acct, victim.teamId)).toEqual([[heir.id, 'owner']]);

    // In an organization: its admin administers every team of it without being a member.
    const { org, admin, team } = await organizationWithTeam(acct, 'Reorg');
    const orgKey = (await call(app(), '/api-keys', { key: acct.key, as: admin.email, body: { label: 'org key' } })).body.apiKey.key;
    const owner = await memberOf(acct, org.id);
    const theirs = (await call(app(), '/teams', { key: orgKey, body: { name: 'Owned', ownerId: owner.id } })).body.team;
    const successor = await memberOf(acct, org.id);
    expect((await call(app(), `/teams/${theirs.id}/members`, { key: orgKey, body: { userId: successor.id } })).status).toBe(201);
    const reorg = await call(app(), `/teams/${team.id}/members`, { key: await userKey(app(), acct, admin.id), body: { userId: owner.id, newOwnerId: successor.id } });
    expect(reorg.status, JSON.stringify(reorg.body)).toBe(201);
    expect(await membersOf(acct, theirs.id)).toEqual([[successor.id, 'owner']]);
  });

  it('reactivating an archived member follows the same rules as adding them', async () => {
    const acct = await newAccount(app());
    const lead = await newUser(app(), acct);
    const leadKey = await userKey(app(), acct, lead.id);
    const former = await newUser(app(), acct);
    expect((await call(app(), `/teams/${lead.teamId}/members`, { key: leadKey, body: { userId: former.id } })).status).toBe(201);
    const memberId = (await call(app(), `/teams/${lead.teamId}/members`, { key: leadKey })).body.members.find((m: { user: { id: string } }) => m.user.id === former.id).id;
    // The former member leaves for a team of their own with a teammate, and later an organization.
    const own = await call(app(), '/teams', { key: await userKey(app(), acct, former.id), body: { name: 'Mine' } });
    expect(own.status).toBe(201);
    await newUser(app(), acct, { teamId: own.body.team.id });
    const reactivate = () => call(app(), `/teams/${lead.teamId}/members/${memberId}`, { key: leadKey, method: 'PUT', body: { status: 'active' } });
    const refused = await reactivate();
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body).toMatchObject({ requiresOwnershipTransfer: true, teamId: own.body.team.id });

    const { org } = await organizationWithTeam(acct, 'Later employer');
    await call(app(), `/users/${former.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'member' } });
    expect((await reactivate()).status).toBe(404);
    expect((await userOf(acct, former.id)).team.id).toBe(own.body.team.id);
  });
});

describe('the hosted app applies the same rule', () => {
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'resolved';
    } catch (e) {
      if (e instanceof TRPCError && e.cause instanceof AppError) return `${e.code}:${e.cause.code}`;
      throw e;
    }
  };

  it('teams.addMember and addMemberByEmail refuse people of an organization for a team outside any, and a foreign heir', async () => {
    const db = app().database.db;
    const acct = await newAccount(app());
    const host = `teams-${Date.now().toString(36)}.steward.test`;
    await setHostedDomain(db, acct.accountId, host);
    const lead = await newUser(app(), acct);
    const [leadRow] = await db.select().from(users).where(eq(users.id, lead.id));
    const cookie = await sessionSetCookie(db, leadRow, 'email', true);
    const asLead = appRouter.createCaller(await portalContext(db, new Headers({ host, cookie: cookie.split(';')[0] })));

    const { org } = await organizationWithTeam(acct, 'Portal victim');
    const victim = await memberOf(acct, org.id);
    expect(await codeOf(asLead.teams.addMember({ teamId: lead.teamId, member: { userId: victim.id, role: 'member' } }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(asLead.teams.addMemberByEmail({ teamId: lead.teamId, email: victim.email, role: 'member' }))).toBe('NOT_FOUND:not_found');
    expect((await userOf(acct, victim.id)).organization).toBe(org.id);

    const owner = await newUser(app(), acct);
    const heir = await newUser(app(), acct, { teamId: owner.teamId });
    expect(await codeOf(asLead.teams.addMember({ teamId: lead.teamId, member: { userId: owner.id, role: 'member', newOwnerId: heir.id } }))).toBe('FORBIDDEN:forbidden');
    expect(await membersOf(acct, owner.teamId)).toEqual(expect.arrayContaining([[owner.id, 'owner']]));
    const loner = await newUser(app(), acct);
    const added = await asLead.teams.addMemberByEmail({ teamId: lead.teamId, email: loner.email.toUpperCase(), role: 'member' });
    expect(added.member.user.id).toBe(loner.id);
  });
});
