import { describe, expect, it } from 'vitest';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { PATCH_OP, USER_URN, GROUP_URN, scimOrganization } from '../scim/scim-client';

/**
 * Issue 46: every change an admin, a key or an IdP makes to people and structures is an audit
 * event: provisioning and deprovisioning, suspension and deletion of users, organization and team
 * membership, organizations, teams and assistants created and deleted, and SCIM's changes.
 */
const app = useTestServer();
type Event = { action: string; actor: { type: string; id: string | null }; target: { type: string; id: string | null }; organizationId?: string; changes?: { before: any; after: any }; ip?: string };
const eventsAbout = async (key: string, targetId: string): Promise<Event[]> => {
  const res = await call(app(), `/audit-events?targetId=${targetId}&limit=100`, { key });
  expect(res.status).toBe(200);
  return res.body.events;
};
const actions = (es: Event[]) => es.map((e) => e.action).reverse();

describe('people and structures are audited', () => {
  it('provisioning, suspension, deprovisioning and deletion of users', async () => {
    const acct = await newAccount(app());
    const team = await newUser(app(), acct);
    const email = `p${Date.now()}@example.com`;
    const provisioned = await call(app(), '/users/provision', { key: acct.key, body: { email, teamId: team.teamId } });
    const userId = provisioned.body.user.id as string;
    // A repeat call changes nothing and records nothing.
    await call(app(), '/users/provision', { key: acct.key, body: { email, teamId: team.teamId } });
    await call(app(), `/users/${userId}`, { key: acct.key, method: 'PUT', body: { status: 'suspended' } });
    await call(app(), `/users/${userId}`, { key: acct.key, method: 'PUT', body: { status: 'active', firstName: 'Pat' } });
    const es = await eventsAbout(acct.key, userId);
    // The last PUT changes the status and a name in one transaction: its two events share their moment, in either order.
    expect(actions(es).slice(0, 2)).toEqual(['user.provisioned', 'user.status_changed']);
    expect(actions(es).slice(2).sort()).toEqual(['user.status_changed', 'user.updated']);
    const first = es[es.length - 1];
    expect(first).toMatchObject({ actor: { type: 'api_key' }, target: { type: 'user', id: userId }, ip: '127.0.0.1' });
    expect(first.changes?.after).toMatchObject({ email, created: true, teamId: team.teamId, addedToTeam: true });
    const suspended = es.find((e) => e.action === 'user.status_changed' && e.changes?.after.status === 'suspended');
    expect(suspended?.changes).toEqual({ before: { status: 'active' }, after: { status: 'suspended' } });
    expect(es.find((e) => e.action === 'user.updated')?.changes).toEqual({ before: { firstName: '' }, after: { firstName: 'Pat' } });

    const gone = await call(app(), '/users/deprovision', { key: acct.key, body: { email, teamId: team.teamId } });
    expect(gone.body.userDeleted).toBe(true);
    const after = await eventsAbout(acct.key, userId);
    expect(after[0]).toMatchObject({ action: 'user.deprovisioned', changes: { after: { userDeleted: true } } });

    const other = await newUser(app(), acct);
    await call(app(), `/users/${other.id}`, { key: acct.key, method: 'DELETE' });
    expect((await eventsAbout(acct.key, other.id))[0]).toMatchObject({ action: 'user.deleted', actor: { type: 'api_key' } });
  });

  it('organizations, their members, teams, team members and assistants: created, added, removed, deleted', async () => {
    const acct = await newAccount(app());
    const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Audited' } })).body.organization;
    const person = await newUser(app(), acct);
    const added = await call(app(), `/organizations/${org.id}/members`, { key: acct.key, body: { email: person.email } });
    expect(added.status).toBe(201);
    await call(app(), `/organizations/${org.id}/members/${person.id}`, { key: acct.key, method: 'DELETE' });
    expect(actions(await eventsAbout(acct.key, person.id)).filter((a) => a.startsWith('member.'))).toEqual(['member.added', 'member.removed']);

    const owner = await newUser(app(), acct);
    const t = await call(app(), '/teams', { key: acct.key, body: { name: 'Audited team', ownerId: owner.id } });
    const teamId = t.body.team.id as string;
    const joiner = await newUser(app(), acct);
    const m = await call(app(), `/teams/${teamId}/members`, { key: acct.key, body: { userId: joiner.id } });
    const memberId = m.body.member.id as string;
    await call(app(), `/teams/${teamId}/members/${memberId}`, { key: acct.key, method: 'DELETE' });
    expect(actions(await eventsAbout(acct.key, memberId))).toEqual(['team_member.added', 'team_member.removed']);
    await call(app(), `/teams/${teamId}`, { key: acct.key, method: 'PUT', body: { name: 'Renamed' } });
    await call(app(), `/teams/${teamId}`, { key: acct.key, method: 'DELETE' });
    const teamEvents = await eventsAbout(acct.key, teamId);
    expect(actions(teamEvents)).toEqual(['team.created', 'team.updated', 'team.deleted']);
    expect(teamEvents[1].changes).toEqual({ before: { name: 'Audited team' }, after: { name: 'Renamed' } });

    const a = await call(app(), '/assistants', { key: acct.key, body: { name: 'Audited assistant', email: `aa${Date.now()}@assistants.example` } });
    await call(app(), `/assistants/${a.body.assistant.id}`, { key: acct.key, method: 'DELETE' });
    expect(actions(await eventsAbout(acct.key, a.body.assistant.id))).toEqual(['assistant.created', 'assistant.deleted']);
    // A user's own assistant, hired and released through the roster: the user's key acted.
    const k = await userKey(app(), acct, owner.id);
    const mine = await call(app(), `/users/${owner.id}/assistants`, { key: k, body: { name: 'Mine' } });
    const spare = await call(app(), `/users/${owner.id}/assistants`, { key: k, body: { name: 'Spare' } });
    await call(app(), `/users/${owner.id}/assistants/${spare.body.assistant.id}`, { key: k, method: 'DELETE' });
    expect(actions(await eventsAbout(acct.key, mine.body.assistant.id))).toEqual(['assistant.created']);
    const released = await eventsAbout(acct.key, spare.body.assistant.id);
    expect(actions(released)).toEqual(['assistant.created', 'assistant.deleted']);
    expect(released[0].actor).toMatchObject({ type: 'api_key' });

    await call(app(), `/organizations/${org.id}`, { key: acct.key, method: 'DELETE' });
    expect(actions(await eventsAbout(acct.key, org.id))).toEqual(['organization.created', 'organization.deleted']);
  });

  it('SCIM: users created, deactivated and deleted, groups and their members, with the IdP as actor', async () => {
    const { acct, org, domain, scim } = await scimOrganization(app);
    const made = await scim('/Users', { body: { schemas: [USER_URN], userName: `ann@${domain}`, active: true } });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    await scim(`/Users/${id}`, { method: 'PATCH', body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } });
    const group = await scim('/Groups', { body: { schemas: [GROUP_URN], displayName: 'IdP group', members: [{ value: id }] } });
    expect(group.status).toBe(201);
    await scim(`/Groups/${group.body.id}`, { method: 'DELETE' });
    await scim(`/Users/${id}`, { method: 'DELETE' });
    const userEvents = await eventsAbout(acct.key, id);
    // Provisioning into the organization records both events in one transaction: they share their moment, in either order.
    expect(actions(userEvents).slice(0, 2).sort()).toEqual(['member.added', 'user.provisioned']);
    expect(actions(userEvents).slice(2)).toEqual(['user.status_changed', 'user.deleted']);
    for (const e of userEvents) expect(e).toMatchObject({ actor: { type: 'scim', id: org.id }, organizationId: org.id, ip: '127.0.0.1' });
    expect(userEvents.find((e) => e.action === 'user.status_changed')?.changes).toEqual({ before: { status: 'active' }, after: { status: 'inactive' } });
    expect(actions(await eventsAbout(acct.key, group.body.id))).toEqual(['team.created', 'team.deleted']);
    const all = (await call(app(), '/audit-events?action=team_member.added&limit=100', { key: acct.key })).body.events as Event[];
    expect(all.some((e) => e.actor.type === 'scim' && e.changes?.after.userId === id && e.changes?.after.teamId === group.body.id)).toBe(true);
  });
});
