import { describe, expect, it } from 'vitest';
import { ListTeamMembersResponse, TeamEnvelope } from '@/server/teams/contracts';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function teamOf(n: number) {
  const acct = await newAccount(app());
  const owner = await newUser(app(), acct);
  const others = [];
  for (let i = 0; i < n; i++) others.push(await newUser(app(), acct, { teamId: owner.teamId }));
  const members = (await call(app(), `/teams/${owner.teamId}/members?perPage=50`, { key: acct.key })).body.members as Array<{ id: string; user: { id: string } }>;
  const memberId = (userId: string) => members.find((m) => m.user.id === userId)!.id;
  return { acct, owner, others, teamId: owner.teamId, memberId };
}
const teamOfUser = async (acctKey: string, userId: string) => (await call(app(), `/users/${userId}`, { key: acctKey })).body.user.team;

describe('teams', () => {
  it('a user creates a team and becomes its owner (moving there); an account key must name ownerId', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    const res = await call(app(), '/teams', { key: acct.key, as: u.email, body: { name: 'Growth' } });
    expect(res.status).toBe(201);
    const { team } = TeamEnvelope.parse(res.body);
    expect(team).toMatchObject({ name: 'Growth', organization: null, status: 'active' });
    expect(await teamOfUser(acct.key, u.id)).toMatchObject({ id: team.id });
    const old = await call(app(), `/teams/${u.teamId}`, { key: acct.key });
    expect(old.body.team.status).toBe('archived');
    expect((await call(app(), '/teams', { key: acct.key, body: { name: 'No owner' } })).status).toBe(400);
    expect((await call(app(), '/teams', { key: acct.key, body: { name: 'Ghost', ownerId: 'ffffffffffffffffffffffff' } })).status).toBe(404);
    expect((await call(app(), '/teams', { key: acct.key, body: {} })).status).toBe(400);
  });

  it('adding a member archives their other memberships; an owner with teammates needs newOwnerId', async () => {
    const { acct, owner, others, teamId } = await teamOf(1);
    const target = await newUser(app(), acct);
    const added = await call(app(), `/teams/${target.teamId}/members`, { key: acct.key, body: { userId: owner.id } });
    expect(added.status).toBe(400);
    expect(added.body).toMatchObject({ requiresOwnershipTransfer: true, teamId });
    expect((await call(app(), `/teams/${target.teamId}/members`, { key: acct.key, body: { userId: owner.id, newOwnerId: 'nope' } })).status).toBe(400);
    const moved = await call(app(), `/teams/${target.teamId}/members`, { key: acct.key, body: { userId: owner.id, newOwnerId: others[0].id, role: 'admin' } });
    expect(moved.status).toBe(201);
    expect(moved.body.member).toMatchObject({ role: 'admin', status: 'active', user: { id: owner.id } });
    const old = ListTeamMembersResponse.parse((await call(app(), `/teams/${teamId}/members`, { key: acct.key })).body);
    expect(old.members.map((m) => [m.user.id, m.role])).toEqual([[others[0].id, 'owner']]);
    const archived = (await call(app(), `/teams/${teamId}/members?status=archived`, { key: acct.key })).body.members;
    expect(archived.map((m: { user: { id: string } }) => m.user.id)).toEqual([owner.id]);
  });

  it('role rules: admins cannot touch the owner, grant owner, or raise other admins; the owner can hand over ownership', async () => {
    const { acct, owner, others, teamId, memberId } = await teamOf(3);
    const [a, b, c] = others;
    await call(app(), `/teams/${teamId}/members/${memberId(a.id)}`, { key: acct.key, as: owner.email, method: 'PUT', body: { role: 'admin' } });
    await call(app(), `/teams/${teamId}/members/${memberId(b.id)}`, { key: acct.key, as: owner.email, method: 'PUT', body: { role: 'admin' } });
    const asA = { key: acct.key, as: a.email, method: 'PUT' };
    expect((await call(app(), `/teams/${teamId}/members/${memberId(owner.id)}`, { ...asA, body: { role: 'member' } })).status).toBe(403);
    expect((await call(app(), `/teams/${teamId}/members/${memberId(c.id)}`, { ...asA, body: { role: 'owner' } })).status).toBe(403);
    expect((await call(app(), `/teams/${teamId}/members/${memberId(b.id)}`, { ...asA, body: { role: 'member' } })).status).toBe(200);
    expect((await call(app(), `/teams/${teamId}/members/${memberId(c.id)}`, { key: acct.key, as: c.email, method: 'PUT', body: { role: 'admin' } })).status).toBe(403);
    const handover = await call(app(), `/teams/${teamId}/members/${memberId(c.id)}`, { key: acct.key, as: owner.email, method: 'PUT', body: { role: 'owner' } });
    expect(handover.body.member.role).toBe('owner');
    const roles = (await call(app(), `/teams/${teamId}/members?perPage=50`, { key: acct.key })).body.members.map((m: { user: { id: string }; role: string }) => [m.user.id, m.role]);
    expect(Object.fromEntries(roles)).toEqual({ [owner.id]: 'admin', [a.id]: 'admin', [b.id]: 'member', [c.id]: 'owner' });
  });

  it('removal rules and placement: owner not removable, no self-removal, admins not removing admins; removed users get a team', async () => {
    const { acct, owner, others, teamId, memberId } = await teamOf(3);
    const [a, b, c] = others;
    await call(app(), `/teams/${teamId}/members/${memberId(a.id)}`, { key: acct.key, as: owner.email, method: 'PUT', body: { role: 'admin' } });
    await call(app(), `/teams/${teamId}/members/${memberId(b.id)}`, { key: acct.key, as: owner.email, method: 'PUT', body: { role: 'admin' } });
    const del = (id: string, as: string) => call(app(), `/teams/${teamId}/members/${memberId(id)}`, { key: acct.key, as, method: 'DELETE' });
    expect((await del(owner.id, a.email)).status).toBe(403);
    expect((await del(a.id, a.email)).status).toBe(403);
    expect((await del(b.id, a.email)).status).toBe(403);
    const removed = await del(c.id, a.email);
    expect(removed.body).toEqual({ ok: true, member: { id: memberId(c.id), deleted: true, message: expect.any(String) } });
    const cTeam = await teamOfUser(acct.key, c.id);
    expect(cTeam.id).not.toBe(teamId);
    expect(cTeam.status).toBe('active');
    expect((await del(b.id, owner.email)).status).toBe(200);
  });

  it('transfer-ownership is for the owner; delete moves members elsewhere; another account sees 404', async () => {
    const { acct, owner, others, teamId } = await teamOf(1);
    const [a] = others;
    expect((await call(app(), `/teams/${teamId}/transfer-ownership`, { key: acct.key, as: a.email, body: { newOwnerId: a.id } })).status).toBe(403);
    expect((await call(app(), `/teams/${teamId}/transfer-ownership`, { key: acct.key, as: owner.email, body: { newOwnerId: 'x' } })).status).toBe(400);
    const t = await call(app(), `/teams/${teamId}/transfer-ownership`, { key: acct.key, as: owner.email, body: { newOwnerId: a.id } });
    expect(t.status).toBe(200);
    const roles = (await call(app(), `/teams/${teamId}/members`, { key: acct.key })).body.members.map((m: { user: { id: string }; role: string }) => [m.user.id, m.role]);
    expect(Object.fromEntries(roles)).toEqual({ [owner.id]: 'member', [a.id]: 'owner' });
    const put = await call(app(), `/teams/${teamId}`, { key: acct.key, as: a.email, method: 'PUT', body: { generalInfo: 'Sales', brandingOnEvents: false } });
    expect(put.body.team).toMatchObject({ generalInfo: 'Sales', brandingOnEvents: false });
    expect((await call(app(), `/teams/${teamId}`, { key: acct.key, as: owner.email, method: 'PUT', body: { name: 'x' } })).status).toBe(403);
    const other = await newAccount(app());
    expect((await call(app(), `/teams/${teamId}`, { key: other.key })).status).toBe(404);
    const deleted = await call(app(), `/teams/${teamId}`, { key: acct.key, as: a.email, method: 'DELETE' });
    expect(deleted.body.team).toMatchObject({ id: teamId, deleted: true });
    expect((await call(app(), `/teams/${teamId}`, { key: acct.key })).status).toBe(404);
    expect((await teamOfUser(acct.key, owner.id)).status).toBe('active');
    expect((await teamOfUser(acct.key, a.id)).status).toBe('active');
    const list = await call(app(), '/teams?status=active', { key: acct.key });
    expect(list.body.teams.map((x: { id: string }) => x.id)).not.toContain(teamId);
  });
});
