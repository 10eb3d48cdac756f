import { expect } from 'vitest';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import type { TestServer } from '../helpers/server';

export const matrixUrl = (userId: string) => `/users/${userId}/preferences/supervision/matrix`;
export const exceptionsUrl = (userId: string) => `/users/${userId}/preferences/supervision/exceptions`;

/** A user with their own key. */
export async function person(app: TestServer, acct: AccountFixture) {
  const u = await newUser(app, acct);
  return { ...u, key: await userKey(app, acct, u.id) };
}

export type Person = Awaited<ReturnType<typeof person>>;

/** An account with an organization, a team in it led by an organization admin, and a member of that team (with a key). */
export async function teamInOrg(app: TestServer) {
  const acct = await newAccount(app);
  const org = (await call(app, '/organizations', { key: acct.key, body: { name: 'Org' } })).body.organization;
  const lead = await newUser(app, acct);
  await call(app, `/users/${lead.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  const team = (await call(app, '/teams', { key: acct.key, as: lead.email, body: { name: 'Ops' } })).body.team;
  const member = await person(app, acct);
  const joined = await call(app, `/users/${member.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id } });
  expect(joined.status, JSON.stringify(joined.body)).toBe(200);
  const added = await call(app, `/teams/${team.id}/members`, { key: acct.key, body: { userId: member.id } });
  expect(added.status, JSON.stringify(added.body)).toBeLessThan(300);
  return { acct, org, lead, team, member, teamPolicyUrl: `/teams/${team.id}/settings/resource-permissions` };
}

export async function patchMatrix(app: TestServer, p: { id: string; key: string }, matrix: Record<string, unknown>) {
  return call(app, matrixUrl(p.id), { key: p.key, method: 'PATCH', body: { matrix } });
}
