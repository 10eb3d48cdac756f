import { describe, expect, it } from 'vitest';
import { setHostedDomain } from '@/server/hosted/accounts';
import { call, newAccount, newUser } from '../helpers/client';
import { hostedCaller, procedureOutcome } from '../helpers/hosted-caller';
import { useTestServer } from '../helpers/server';

/*
 * The hosted app's join flow (app/teams: "Join a team"; the team page's "Requests to join"):
 * the procedures of server/trpc/routers/teams.ts call the team-joins services, so a person sees
 * the teams they may join, asks, withdraws, and a team admin decides, with the same refusals.
 */
const app = useTestServer();

let n = 0;
async function organization() {
  const acct = await newAccount(app(), 'Join page');
  const host = `join-page-${Date.now().toString(36)}-${++n}.steward.test`;
  await setHostedDomain(app().database.db, acct.accountId, host);
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Join page Co' } })).body.organization as { id: string };
  const inOrg = async (role: 'admin' | 'member') => {
    const u = await newUser(app(), acct);
    expect((await call(app(), `/users/${u.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: role } })).status).toBe(200);
    return u;
  };
  const lead = await inOrg('admin');
  const teamId = (await call(app(), '/teams', { key: acct.key, as: lead.email, body: { name: 'Field team', adminApprovalRequired: true } })).body.team.id as string;
  const asker = await inOrg('member');
  const outsider = await newUser(app(), acct);
  return {
    acct,
    teamId,
    asker,
    leadApi: await hostedCaller(app(), host, lead.id),
    askerApi: await hostedCaller(app(), host, asker.id),
    outsiderApi: await hostedCaller(app(), host, outsider.id),
  };
}

describe('the hosted join flow', () => {
  it('a person sees the team, asks, withdraws and asks again; the team admin sees the request, turns approval off and on, and approves', async () => {
    const { acct, teamId, asker, leadApi, askerApi, outsiderApi } = await organization();
    expect((await askerApi.teams.joinable()).teams.map((t) => t.name)).toContain('Field team');
    expect((await outsiderApi.teams.joinable()).teams).toEqual([]);
    expect(await procedureOutcome(outsiderApi.teams.askToJoin({ teamId }))).toBe('NOT_FOUND:404');

    const first = await askerApi.teams.askToJoin({ teamId, request: { message: 'Count me in' } });
    expect(first.joinRequest.status).toBe('pending');
    expect((await askerApi.teams.myJoinRequests()).joinRequests.map((r) => r.id)).toEqual([first.joinRequest.id]);
    await askerApi.teams.withdrawJoinRequest({ teamId, requestId: first.joinRequest.id });
    expect((await askerApi.teams.myJoinRequests()).joinRequests).toEqual([]);
    const second = await askerApi.teams.askToJoin({ teamId });

    // Only admins read and decide; a plain person of the organization is not on the team.
    expect(await procedureOutcome(askerApi.teams.joinRequests({ teamId }))).toBe('NOT_FOUND:404');
    expect(await procedureOutcome(askerApi.teams.decideJoinRequest({ teamId, requestId: second.joinRequest.id, decision: 'approve' }))).toBe('NOT_FOUND:404');
    expect((await leadApi.teams.joinRequests({ teamId })).joinRequests.map((r) => [r.user.email, r.status])).toEqual([[asker.email, 'pending']]);

    await leadApi.teams.update({ teamId, patch: { adminApprovalRequired: false } });
    expect((await call(app(), `/teams/${teamId}`, { key: acct.key })).body.team.adminApprovalRequired).toBe(false);
    await leadApi.teams.update({ teamId, patch: { adminApprovalRequired: true } });

    const approved = await leadApi.teams.decideJoinRequest({ teamId, requestId: second.joinRequest.id, decision: 'approve' });
    expect(approved.joinRequest.status).toBe('approved');
    expect((await call(app(), `/users/${asker.id}`, { key: acct.key })).body.user.team.id).toBe(teamId);
    expect((await askerApi.teams.joinable()).teams.map((t) => t.id)).not.toContain(teamId);
    expect((await leadApi.teams.joinRequests({ teamId })).joinRequests).toEqual([]);
  });
});
