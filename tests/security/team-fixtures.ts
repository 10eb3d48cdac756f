import type { TestServer } from '../helpers/server';
import { call, newUser, userKey } from '../helpers/client';
import type { Credential, Fixture, Made, Owner } from './fixtures';
import { made, madeKey, ownedOrg, rand } from './fixture-kit';

/* The security suite's fixtures for teams: a team led by its own admin, its members, and join requests. */

export const leadTeam = async (s: TestServer, o: Owner) => {
  const lead = await newUser(s, o.account);
  return { teamId: lead.teamId, leadId: lead.id, key: await userKey(s, o.account, lead.id) };
};
const teamWithMate = async (s: TestServer, o: Owner) => {
  const t = await leadTeam(s, o);
  // Targets only, never callers: they need no onboarding.
  const mate = await newUser(s, o.account, { teamId: t.teamId, onboard: false });
  const members = await made('members', call(s, `/teams/${t.teamId}/members`, { key: t.key }));
  const memberId = (members.members as Array<{ id: string; user: { id: string } }>).find((m) => m.user.id === mate.id)!.id;
  return { ...t, mateId: mate.id, memberId };
};
const teamAndNewcomer = async (s: TestServer, o: Owner) => ({ ...(await leadTeam(s, o)), joinerId: (await newUser(s, o.account, { onboard: false })).id });

/**
 * A team of the owner's organization that asks approval to join, led by its own admin (`key`), and
 * a member of the organization who may ask to join it (`askerKey`); `requestId` when `asked`.
 */
const orgTeamToJoin = async (s: TestServer, o: Owner, asked: boolean): Promise<Made> => {
  const { orgId } = await ownedOrg(s, o);
  const lead = await newUser(s, o.account);
  await made('organization admin', call(s, `/users/${lead.id}`, { key: o.account.key, method: 'PUT', body: { organization: orgId, organizationRole: 'admin' } }));
  const key = await userKey(s, o.account, lead.id);
  const team = await made('team', call(s, '/teams', { key, body: { name: `Joinable ${rand()}`, adminApprovalRequired: true } }));
  const asker = await newUser(s, o.account);
  await made('organization member', call(s, `/users/${asker.id}`, { key: o.account.key, method: 'PUT', body: { organization: orgId, organizationRole: 'member' } }));
  const askerKey = await userKey(s, o.account, asker.id);
  const teamId = team.team.id as string;
  if (!asked) return { teamId, key, askerKey };
  const r = await made('join request', call(s, `/teams/${teamId}/join-requests`, { key: askerKey, body: { message: 'Let me in' } }));
  return { teamId, key, askerKey, requestId: r.joinRequest.id as string };
};
const askerKey = (m: Made): Credential => ({ key: m.askerKey });


export const teamFixtures: Record<string, Fixture> = {
  '/teams/{teamId}': { ownership: 'user', create: leadTeam, by: madeKey, methods: { PUT: { body: () => ({ name: 'Renamed' }) }, DELETE: { spends: true } } },
  '/teams/{teamId}/settings/resource-permissions': {
    ownership: 'user',
    create: leadTeam,
    by: madeKey,
    methods: { PATCH: { body: () => ({ capabilities: { workspaceCli: 'off' } }) } },
  },
  '/teams/{teamId}/settings/security-preset': { ownership: 'user', create: leadTeam, by: madeKey, methods: { POST: { body: () => ({ preset: 'restricted' }) } } },
  '/teams/{teamId}/join-requests': {
    ownership: 'user',
    create: (s, o) => orgTeamToJoin(s, o, false),
    by: madeKey,
    methods: { POST: { by: askerKey, body: () => ({ message: 'Let me in' }) } },
  },
  '/teams/{teamId}/join-requests/{requestId}': { ownership: 'user', create: (s, o) => orgTeamToJoin(s, o, true), by: askerKey, methods: { DELETE: { spends: true } } },
  '/teams/{teamId}/join-requests/{requestId}/approve': { ownership: 'user', create: (s, o) => orgTeamToJoin(s, o, true), by: madeKey, methods: { POST: { spends: true } } },
  '/teams/{teamId}/join-requests/{requestId}/decline': { ownership: 'user', create: (s, o) => orgTeamToJoin(s, o, true), by: madeKey, methods: { POST: { spends: true } } },
  '/teams/{teamId}/members': { ownership: 'user', create: teamAndNewcomer, by: madeKey, methods: { POST: { body: (m) => ({ userId: m.joinerId }) } } },
  '/teams/{teamId}/members/{memberId}': { ownership: 'user', create: teamWithMate, by: madeKey, methods: { PUT: { body: () => ({ role: 'admin' }) }, DELETE: { spends: true } } },
  '/teams/{teamId}/transfer-ownership': { ownership: 'user', create: teamWithMate, by: madeKey, methods: { POST: { body: (m) => ({ newOwnerId: m.mateId }), spends: true } } },
};
