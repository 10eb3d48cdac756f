import { describe, expect, it } from 'vitest';
import { teamMemberships } from '@/db/schema';
import { setApprovalLock } from '@/server/policy/approval-locks';
import { resolveDispatchMode, resolveTaskDispatchMode } from '@/server/policy/autonomy-resolve';
import { writePolicy } from '@/server/policy/team-policy';
import { call, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { exceptionsUrl, patchMatrix, teamInOrg } from './fixtures';

/*
 * The resolver the carts call when a run's cart is submitted. Its state is set up through the
 * public endpoints (matrix, exceptions, team policy) and the console's lock service.
 */
const app = useTestServer();
const db = () => app().database.db;

async function setup() {
  const t = await teamInOrg(app());
  const user = { id: t.member.id, accountId: t.acct.accountId, organizationId: t.org.id };
  const except = async (body: Record<string, unknown>) => {
    const res = await call(app(), exceptionsUrl(t.member.id), { key: t.member.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  };
  return { ...t, user, except };
}

describe('resolveDispatchMode', () => {
  it('platform default, then the user’s own cell with its window, expiry and undo delay', async () => {
    const { user, member } = await setup();
    expect(await resolveDispatchMode(db(), user, 'email_as_user', ['a@b.example'])).toEqual({
      mode: 'manual',
      timeBoxedWindowMin: null,
      timeBoxedExpiry: 'execute',
      undoDelaySec: 30,
      source: 'default',
    });
    expect((await resolveDispatchMode(db(), user, 'third_party_skills', [])).mode).toBe('manual');
    await patchMatrix(app(), member, { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 15, timeBoxedExpiry: 'cancel', undoDelaySec: 0 } });
    expect(await resolveDispatchMode(db(), user, 'calendar', [])).toEqual({ mode: 'time-boxed', timeBoxedWindowMin: 15, timeBoxedExpiry: 'cancel', undoDelaySec: 0, source: 'user' });
  });

  it('recipient exceptions: exact domain, address over domain; relaxing needs every recipient, tightening any', async () => {
    const { user, except } = await setup();
    await except({ match: { kind: 'domain', value: 'partner.example' }, mode: 'auto', undoDelaySec: 0, appliesTo: ['email_as_user'] });
    await except({ match: { kind: 'address', value: 'boss@partner.example' }, mode: 'time-boxed', timeBoxedWindowMin: 90, appliesTo: ['email_as_user'] });
    const mode = async (recipients: string[], actionType: 'email_as_user' | 'email_as_assistant' = 'email_as_user') => resolveDispatchMode(db(), user, actionType, recipients);

    expect(await mode(['ann@partner.example'])).toEqual({ mode: 'auto', timeBoxedWindowMin: null, timeBoxedExpiry: 'execute', undoDelaySec: 0, source: 'exception' });
    expect((await mode(['Ann Lee <Ann@Partner.EXAMPLE>'])).mode).toBe('auto');
    expect(await mode(['ann@partner.example', 'bob@partner.example'])).toMatchObject({ mode: 'auto', source: 'exception' });
    // Subdomains and look-alikes are not the domain.
    expect((await mode(['ann@eu.partner.example'])).mode).toBe('manual');
    expect((await mode(['ann@notpartner.example'])).mode).toBe('manual');
    // One recipient outside the exception keeps the user's cell, with its undo delay.
    expect(await mode(['ann@partner.example', 'eve@elsewhere.example'])).toEqual({ mode: 'manual', timeBoxedWindowMin: null, timeBoxedExpiry: 'execute', undoDelaySec: 30, source: 'default' });
    // The address exception is more specific than the domain one, for that address only.
    expect(await mode(['boss@partner.example'])).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 90, source: 'exception' });
    // The strictest recipient decides, and the longest undo delay holds (boss's exception keeps the user's 30 s).
    expect(await mode(['ann@partner.example', 'boss@partner.example'])).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 90, undoDelaySec: 30 });
    // Other action types are untouched.
    expect(await mode(['ann@partner.example'], 'email_as_assistant')).toMatchObject({ mode: 'auto', source: 'default', undoDelaySec: 30 });
  });

  it('a tightening exception applies when it matches any recipient', async () => {
    const { user, member, except } = await setup();
    await patchMatrix(app(), member, { messaging: { mode: 'auto' } });
    await except({ match: { kind: 'address', value: '+33612345678' }, mode: 'manual', appliesTo: ['messaging'] });
    expect(await resolveDispatchMode(db(), user, 'messaging', ['+15550001111'])).toMatchObject({ mode: 'auto', source: 'user' });
    expect(await resolveDispatchMode(db(), user, 'messaging', ['+15550001111', '+33612345678'])).toMatchObject({ mode: 'manual', source: 'exception' });
  });

  it('locks win over the user’s cell and over exceptions', async () => {
    const { acct, org, user, member, except } = await setup();
    await patchMatrix(app(), member, { email_as_assistant: { mode: 'auto', undoDelaySec: 5 } });
    await except({ match: { kind: 'domain', value: 'partner.example' }, mode: 'auto', appliesTo: ['email_as_assistant', 'drive'] });
    await setApprovalLock(db(), { accountId: acct.accountId, actionType: 'email_as_assistant', mode: 'manual', clear: false });
    expect(await resolveDispatchMode(db(), user, 'email_as_assistant', ['ann@partner.example'])).toEqual({
      mode: 'manual',
      timeBoxedWindowMin: null,
      timeBoxedExpiry: 'execute',
      undoDelaySec: 5,
      source: 'lock',
    });
    await setApprovalLock(db(), { accountId: acct.accountId, organizationId: org.id, actionType: 'drive', mode: 'time-boxed', timeBoxedWindowMin: 30, clear: false });
    expect(await resolveDispatchMode(db(), user, 'drive', ['ann@partner.example'])).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 30, source: 'lock' });
    // A user outside the organization is not bound by its lock.
    expect(await resolveDispatchMode(db(), { ...user, organizationId: null }, 'drive', ['ann@partner.example'])).toMatchObject({ mode: 'auto', source: 'exception' });
  });

  it('inherits team, then organization, then account; a user on several teams gets the strictest team value', async () => {
    const { acct, org, team, user, teamPolicyUrl } = await setup();
    await writePolicy(db(), 'account', acct.accountId, acct.accountId, { matrix: { files: { mode: 'manual', timeBoxedWindowMin: null }, contacts: { mode: 'manual', timeBoxedWindowMin: null } } });
    await writePolicy(db(), 'organization', org.id, acct.accountId, { matrix: { files: { mode: 'time-boxed', timeBoxedWindowMin: 10 } } });
    expect(await resolveDispatchMode(db(), user, 'files', [])).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 10, source: 'organization' });
    expect(await resolveDispatchMode(db(), user, 'contacts', [])).toMatchObject({ mode: 'manual', source: 'account' });
    await call(app(), teamPolicyUrl, { key: acct.key, method: 'PATCH', body: { approvalSettings: { matrix: { files: { mode: 'auto' }, calendar: { mode: 'time-boxed', timeBoxedWindowMin: 20 } } } } });
    expect(await resolveDispatchMode(db(), user, 'files', [])).toMatchObject({ mode: 'auto', source: 'team' });

    // A second active membership (the data model allows several; joining by API archives the others).
    const owner = await newUser(app(), acct);
    const created = await call(app(), '/teams', { key: acct.key, body: { name: 'Second', ownerId: owner.id } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const other = created.body.team;
    expect(other.id).not.toBe(team.id);
    await db().insert(teamMemberships).values({ accountId: acct.accountId, teamId: other.id, userId: user.id, role: 'member', status: 'active' });
    const otherUrl = `/teams/${other.id}/settings/resource-permissions`;
    await call(app(), otherUrl, { key: acct.key, method: 'PATCH', body: { approvalSettings: { matrix: { calendar: { mode: 'time-boxed', timeBoxedWindowMin: 60 } } } } });
    expect(await resolveDispatchMode(db(), user, 'calendar', [])).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 60, source: 'team' });
    await call(app(), otherUrl, { key: acct.key, method: 'PATCH', body: { approvalSettings: { matrix: { calendar: { mode: 'manual' } } } } });
    expect(await resolveDispatchMode(db(), user, 'calendar', [])).toMatchObject({ mode: 'manual', source: 'team' });
  });

  it('a task’s own mode replaces the user’s cell; exceptions only tighten it; locks still win', async () => {
    const { acct, user, member, except } = await setup();
    await except({ match: { kind: 'domain', value: 'strict.example' }, mode: 'manual', appliesTo: ['messaging', 'drive'] });
    await except({ match: { kind: 'domain', value: 'loose.example' }, mode: 'auto', appliesTo: ['email_as_user', 'drive'] });
    expect(await resolveTaskDispatchMode(db(), user, 'email_as_user', ['a@b.example'], 'auto')).toMatchObject({ mode: 'auto', source: 'task' });
    expect(await resolveTaskDispatchMode(db(), user, 'messaging', ['a@strict.example'], 'auto')).toMatchObject({ mode: 'manual', source: 'exception' });
    expect(await resolveTaskDispatchMode(db(), user, 'email_as_user', ['a@loose.example'], 'manual')).toMatchObject({ mode: 'manual', source: 'task' });
    await patchMatrix(app(), member, { drive: { timeBoxedWindowMin: 25 } });
    expect(await resolveTaskDispatchMode(db(), user, 'drive', ['a@loose.example'], 'time-boxed')).toMatchObject({ mode: 'time-boxed', timeBoxedWindowMin: 25, source: 'task' });
    await setApprovalLock(db(), { accountId: acct.accountId, actionType: 'email_as_user', mode: 'manual', clear: false });
    expect(await resolveTaskDispatchMode(db(), user, 'email_as_user', ['a@b.example'], 'auto')).toMatchObject({ mode: 'manual', source: 'lock' });
    // Without a task mode it is the user's resolution.
    expect(await resolveTaskDispatchMode(db(), user, 'email_as_user', ['a@loose.example'], null)).toMatchObject({ mode: 'manual', source: 'lock' });
  });
});
