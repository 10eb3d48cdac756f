import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, notices } from '@/db/schema';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Join requests (spec 1, Team `adminApprovalRequired`: "a team admin must approve join requests";
 * the endpoints are ours, docs/decisions.md). What each person sees: the asker, the team's admin,
 * people outside the organization, and the team itself afterwards.
 */

const app = useTestServer();
const db = () => app().database.db;

async function organization() {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Join Co' } })).body.organization as { id: string };
  const inOrg = async (role: 'admin' | 'member') => {
    const u = await newUser(app(), acct);
    expect((await call(app(), `/users/${u.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: role } })).status).toBe(200);
    return u;
  };
  const lead = await inOrg('admin');
  const created = await call(app(), '/teams', { key: acct.key, as: lead.email, body: { name: 'Research', adminApprovalRequired: true } });
  expect(created.status).toBe(201);
  const teamId = created.body.team.id as string;
  const as = (u: { email: string }) => ({ key: acct.key, as: u.email });
  return { acct, org, lead, teamId, inOrg, as };
}
const teamOf = async (key: string, userId: string) => (await call(app(), `/users/${userId}`, { key })).body.user.team as { id: string } | null;
const noticesOf = (userId: string) => db().select().from(notices).where(and(eq(notices.userId, userId), eq(notices.kind, 'team_join')));
const audited = (action: string, id: string) => db().select().from(auditEvents).where(and(eq(auditEvents.action, action), eq(auditEvents.targetId, id)));

describe('team join requests', () => {
  it('a member of the organization asks; the team’s admin is told, approves, and the person moves to the team', async () => {
    const { acct, org, lead, teamId, inOrg, as } = await organization();
    const asker = await inOrg('member');
    const outsider = await newUser(app(), acct);

    // Discovery: the organization's teams one is not on; nothing for people outside it.
    const joinable = await call(app(), '/teams?joinable=true', as(asker));
    expect(joinable.status).toBe(200);
    expect(joinable.body.teams.map((t: { id: string }) => t.id)).toContain(teamId);
    expect((await call(app(), '/teams?joinable=true', as(outsider))).body.teams).toEqual([]);
    expect((await call(app(), '/teams?joinable=true', { key: acct.key })).status).toBe(400);

    expect((await call(app(), `/teams/${teamId}/join-requests`, { ...as(outsider), body: {} })).status).toBe(404);
    // A guest of the organization is brought in by an admin, never by asking.
    const guest = await newUser(app(), acct);
    expect((await call(app(), `/users/${guest.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'guest' } })).status).toBe(200);
    expect((await call(app(), '/teams?joinable=true', as(guest))).body.teams).toEqual([]);
    expect((await call(app(), `/teams/${teamId}/join-requests`, { ...as(guest), body: {} })).status).toBe(404);
    const asked = await call(app(), `/teams/${teamId}/join-requests`, { ...as(asker), body: { message: 'I work on the survey' } });
    expect(asked.status).toBe(201);
    expect(asked.body.joinRequest).toMatchObject({ status: 'pending', message: 'I work on the survey', team: { id: teamId, name: 'Research' }, user: { id: asker.id, email: asker.email }, decidedBy: null });
    const id = asked.body.joinRequest.id as string;
    // Asking again is the same request, and the admin is not told twice.
    const again = await call(app(), `/teams/${teamId}/join-requests`, { ...as(asker), body: {} });
    expect(again.status).toBe(200);
    expect(again.body.joinRequest.id).toBe(id);
    const told = await noticesOf(lead.id);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ linkPath: `/teams/${teamId}` });
    expect(told[0]!.subject).toContain('asks to join Research');
    expect(told[0]!.text).toContain('I work on the survey');
    expect(await audited('team_join.requested', id)).toHaveLength(1);

    // Only the team's admins see and decide requests; the asker is not a member yet.
    expect((await call(app(), `/teams/${teamId}/join-requests`, as(asker))).status).toBe(404);
    expect((await call(app(), `/teams/${teamId}/join-requests/${id}/approve`, { ...as(asker), body: {} })).status).toBe(404);
    const list = await call(app(), `/teams/${teamId}/join-requests`, as(lead));
    expect(list.status).toBe(200);
    expect(list.body.joinRequests.map((r: { id: string }) => r.id)).toEqual([id]);

    const before = await teamOf(acct.key, asker.id);
    const approved = await call(app(), `/teams/${teamId}/join-requests/${id}/approve`, { ...as(lead), body: {} });
    expect(approved.status).toBe(200);
    expect(approved.body.joinRequest).toMatchObject({ status: 'approved', decidedBy: lead.id });
    expect((await teamOf(acct.key, asker.id))?.id).toBe(teamId);
    expect((await call(app(), `/teams/${before!.id}`, { key: acct.key })).body.team.status).toBe('archived');
    const members = (await call(app(), `/teams/${teamId}/members`, as(lead))).body.members as Array<{ user: { id: string }; role: string }>;
    expect(members.find((m) => m.user.id === asker.id)?.role).toBe('member');
    const news = await noticesOf(asker.id);
    expect(news.map((n) => n.subject)).toEqual(['You joined Research']);
    expect(await audited('team_join.approved', id)).toHaveLength(1);

    // Decided once: a second decision is refused, and the pending list is empty.
    const twice = await call(app(), `/teams/${teamId}/join-requests/${id}/decline`, { ...as(lead), body: {} });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ error_code: 'not_pending', requestStatus: 'approved' });
    expect((await call(app(), `/teams/${teamId}/join-requests`, as(lead))).body.joinRequests).toEqual([]);
    expect((await call(app(), `/teams/${teamId}/join-requests?status=approved`, as(lead))).body.joinRequests).toHaveLength(1);
    // Now a member, the person has nothing to ask, and a plain member may not read the requests.
    expect((await call(app(), `/teams/${teamId}/join-requests`, { ...as(asker), body: {} })).body).toMatchObject({ error_code: 'already_member' });
    expect((await call(app(), `/teams/${teamId}/join-requests`, as(asker))).status).toBe(403);
  });

  it('a declined request leaves the person where they were; a withdrawn one can no longer be decided, and only its asker withdraws it', async () => {
    const { acct, lead, teamId, inOrg, as } = await organization();
    const declinedOne = await inOrg('member');
    const home = await teamOf(acct.key, declinedOne.id);
    const r1 = (await call(app(), `/teams/${teamId}/join-requests`, { ...as(declinedOne), body: {} })).body.joinRequest.id as string;
    const declined = await call(app(), `/teams/${teamId}/join-requests/${r1}/decline`, { ...as(lead), body: {} });
    expect(declined.status).toBe(200);
    expect(declined.body.joinRequest.status).toBe('declined');
    expect((await teamOf(acct.key, declinedOne.id))?.id).toBe(home!.id);
    expect((await noticesOf(declinedOne.id)).map((n) => n.subject)).toEqual(['Your request to join Research was declined']);
    expect(await audited('team_join.declined', r1)).toHaveLength(1);

    const other = await inOrg('member');
    const r2 = (await call(app(), `/teams/${teamId}/join-requests`, { ...as(other), body: {} })).body.joinRequest.id as string;
    expect((await call(app(), `/teams/${teamId}/join-requests/${r2}`, { ...as(lead), method: 'DELETE' })).status).toBe(404);
    const withdrawn = await call(app(), `/teams/${teamId}/join-requests/${r2}`, { ...as(other), method: 'DELETE' });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.joinRequest.status).toBe('withdrawn');
    expect((await call(app(), `/teams/${teamId}/join-requests/${r2}/approve`, { ...as(lead), body: {} })).status).toBe(409);
    expect((await teamOf(acct.key, other.id))?.id).not.toBe(teamId);
    // A new request after a withdrawn or declined one is a new request.
    const r3 = await call(app(), `/teams/${teamId}/join-requests`, { ...as(declinedOne), body: {} });
    expect(r3.status).toBe(201);
    expect(r3.body.joinRequest.id).not.toBe(r1);
  });

  it('a team that asks no approval takes the person at once; someone who owns a team with others must hand it over first', async () => {
    const { acct, lead, teamId, inOrg, as } = await organization();
    expect((await call(app(), `/teams/${teamId}`, { ...as(lead), method: 'PUT', body: { adminApprovalRequired: false } })).status).toBe(200);
    const joiner = await inOrg('member');
    const joined = await call(app(), `/teams/${teamId}/join-requests`, { ...as(joiner), body: {} });
    expect(joined.status).toBe(201);
    expect(joined.body.joinRequest).toMatchObject({ status: 'approved', decidedBy: null });
    expect((await teamOf(acct.key, joiner.id))?.id).toBe(teamId);
    expect(await noticesOf(lead.id)).toEqual([]);

    // An owner whose team has another active member cannot leave it by asking.
    const owner = await inOrg('member');
    const ownTeam = (await teamOf(acct.key, owner.id))!.id;
    await newUser(app(), acct, { teamId: ownTeam, onboard: false });
    const refused = await call(app(), `/teams/${teamId}/join-requests`, { ...as(owner), body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error_code: 'requires_ownership_transfer', requiresOwnershipTransfer: true, teamId: ownTeam });
    expect((await teamOf(acct.key, owner.id))?.id).toBe(ownTeam);
  });
});
